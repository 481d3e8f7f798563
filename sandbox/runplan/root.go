package runplan

import (
	"os"
	"strings"

	"github.com/kimi-run/kimi-run/sandbox"
)

// RootWarning is rootWarning for this process; mode is --sandbox.
func RootWarning(mode string, getenv func(string) string) string {
	return rootWarning(mode, os.Geteuid(), getenv, fileExists, os.ReadFile)
}

// rootWarning is the warning for a run as root outside a container with the sandbox off,
// or "". A container is recognised by /.dockerenv (Docker), /run/.containerenv (Podman),
// KUBERNETES_SERVICE_HOST (any Kubernetes pod), the container variable (systemd-nspawn,
// LXC, Podman) or a container runtime in /proc/1/cgroup. KIMI_RUN_NO_ROOT_WARNING=1
// silences it.
func rootWarning(mode string, euid int, getenv func(string) string, exists func(string) bool, readFile func(string) ([]byte, error)) string {
	if mode != "" && mode != string(sandbox.Off) || euid != 0 || getenv("KIMI_RUN_NO_ROOT_WARNING") != "" {
		return ""
	}
	if exists("/.dockerenv") || exists("/run/.containerenv") || getenv("KUBERNETES_SERVICE_HOST") != "" || getenv("container") != "" {
		return ""
	}
	if cg, err := readFile("/proc/1/cgroup"); err == nil {
		for _, hint := range []string{"docker", "kubepods", "containerd", "libpod", "lxc", "podman", "buildkit"} {
			if strings.Contains(string(cg), hint) {
				return ""
			}
		}
	}
	return "running as root outside a container with no sandbox: every tool call runs with root's rights (consider --sandbox workspace-write, or a container)"
}

func fileExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
