package run_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// TestUnwritableSessionDir: a session dir the run cannot write (HOME=/ as a non-root user in
// a container, a read-only mount) costs the session, not the run: a warning and an unsaved
// run, as without HOME. Only a run that asked for a session by name fails, with exit 2.
func TestUnwritableSessionDir(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "not-a-dir")
	os.WriteFile(file, []byte("x"), 0o644)
	cases := []struct {
		name string
		args []string
		env  map[string]string
	}{
		{name: "session dir is a file", args: []string{"--session-dir", file}},
		{name: "session dir under a file", args: []string{"--session-dir", filepath.Join(file, "sessions")}},
		{name: "HOME is a file", env: map[string]string{"HOME": file}},
		{name: "XDG_STATE_HOME under a file", env: map[string]string{"XDG_STATE_HOME": filepath.Join(file, "state")}},
	}
	if runtime.GOOS != "windows" && os.Geteuid() != 0 {
		// Permissions bind only a non-root user; root writes anywhere.
		ro := t.TempDir()
		if err := os.Chmod(ro, 0o500); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(ro, 0o700) })
		cases = append(cases,
			struct {
				name string
				args []string
				env  map[string]string
			}{name: "read-only session dir", args: []string{"--session-dir", ro}},
			struct {
				name string
				args []string
				env  map[string]string
			}{name: "read-only HOME", env: map[string]string{"HOME": ro}})
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.Text("All done."))
			r := kimi(t, srv, invocation{args: append([]string{"-p", "do it"}, tt.args...), env: tt.env})
			if r.code != 0 || r.stdout != "All done.\n" {
				t.Fatalf("exit %d, stdout %q, want 0 and the answer\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stderr, "no session is kept") {
				t.Errorf("stderr does not warn that no session is kept:\n%s", r.stderr)
			}

			srv = scripted.New(t, scripted.Text("All done."))
			r = kimi(t, srv, invocation{args: append([]string{"--output-format", "stream-json", "-p", "do it"}, tt.args...), env: tt.env})
			if r.code != 0 {
				t.Fatalf("stream-json: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			evs := events(t, r.stdout)
			warned := false
			for _, e := range evs {
				if e["type"] == "warning" && strings.Contains(e["message"].(string), "no session is kept") {
					warned = true
				}
			}
			if !warned {
				t.Errorf("no warning event:\n%s", r.stdout)
			}
			if res := lastResult(t, r); res["session_id"] != "" {
				t.Errorf("session_id = %v, want empty for an unsaved run", res["session_id"])
			}

			// Asked for by name, a session that cannot be kept is a usage error.
			for _, ask := range [][]string{{"--session", "nightly"}, {"--continue"}} {
				srv := scripted.New(t)
				r := kimi(t, srv, invocation{args: append(append([]string{"-p", "do it"}, tt.args...), ask...), env: tt.env})
				if r.code != 2 {
					t.Errorf("%v: exit %d, want 2\n%s", ask, r.code, r.stderr)
				}
				if n := len(srv.Requests()); n != 0 {
					t.Errorf("%v: %d model calls before the usage error", ask, n)
				}
			}
		})
	}
}
