//go:build windows

package hooks

func shellCommand(command string) (string, []string) {
	return "cmd", []string{"/C", command}
}
