//go:build unix

package hooks

// shellCommand runs command with /bin/sh, as Kimi CLI does.
func shellCommand(command string) (string, []string) {
	return "/bin/sh", []string{"-c", command}
}
