package runplan

import (
	"io/fs"
	"strings"
	"testing"
)

func TestRootWarning(t *testing.T) {
	t.Parallel()
	noCgroup := func(string) ([]byte, error) { return nil, fs.ErrNotExist }
	cgroup := func(text string) func(string) ([]byte, error) {
		return func(string) ([]byte, error) { return []byte(text), nil }
	}
	tests := []struct {
		name   string
		mode   string
		euid   int
		env    map[string]string
		files  []string
		cgroup func(string) ([]byte, error)
		warn   bool
	}{
		{name: "root on a bare host", mode: "off", euid: 0, cgroup: cgroup("0::/user.slice/session-1.scope\n"), warn: true},
		{name: "root, flag unset", mode: "", euid: 0, cgroup: noCgroup, warn: true},
		{name: "not root", mode: "off", euid: 1000, cgroup: noCgroup},
		{name: "sandboxed", mode: "workspace-write", euid: 0, cgroup: noCgroup},
		{name: "docker", mode: "off", euid: 0, files: []string{"/.dockerenv"}, cgroup: noCgroup},
		{name: "podman", mode: "off", euid: 0, files: []string{"/run/.containerenv"}, cgroup: noCgroup},
		{name: "kubernetes", mode: "off", euid: 0, env: map[string]string{"KUBERNETES_SERVICE_HOST": "10.0.0.1"}, cgroup: noCgroup},
		{name: "nspawn", mode: "off", euid: 0, env: map[string]string{"container": "systemd-nspawn"}, cgroup: noCgroup},
		{name: "cgroup v1 docker", mode: "off", euid: 0, cgroup: cgroup("12:pids:/docker/0123abcd\n")},
		{name: "silenced", mode: "off", euid: 0, env: map[string]string{"KIMI_RUN_NO_ROOT_WARNING": "1"}, cgroup: noCgroup},
		{name: "windows has no euid", mode: "off", euid: -1, cgroup: noCgroup},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exists := func(p string) bool {
				for _, f := range tt.files {
					if f == p {
						return true
					}
				}
				return false
			}
			w := rootWarning(tt.mode, tt.euid, func(k string) string { return tt.env[k] }, exists, tt.cgroup)
			if (w != "") != tt.warn {
				t.Errorf("rootWarning = %q, want a warning: %v", w, tt.warn)
			}
			if w != "" && (strings.Contains(w, "\n") || !strings.Contains(w, "--sandbox")) {
				t.Errorf("warning %q is not one line naming the fix", w)
			}
		})
	}
}
