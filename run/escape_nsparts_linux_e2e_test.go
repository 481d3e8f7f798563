//go:build linux

package run_test

// Each part of the commands' namespaces on its own: refused (KIMI_RUN_NS leaves it out, as
// the machine would refuse it), it is named in one warning and left out, while Landlock
// and the other parts stay; and the run's /tmp of its own.

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// nsProbe is a command that says which parts of the namespaces it finds in force: its own
// process namespace (the launcher's init is process 1), read-only mounts (a chmod of
// outside refused), a /tmp of its own (other's file out of sight), Landlock (no file made
// in HOME); and that its own TMPDIR works.
func nsProbe(outside, other string) string {
	return `if tr '\0' ' ' < /proc/1/cmdline | grep -q 'launcher init'; then echo pid:on; else echo pid:off; fi; ` +
		fmt.Sprintf(`if out=$(chmod 600 %s 2>&1); then echo readonly:off; else echo "readonly:on $out"; fi; `, outside) +
		fmt.Sprintf(`if out=$(cat %s 2>&1); then echo tmp:off; else echo "tmp:on $out"; fi; `, other) +
		`if out=$(touch "$HOME/new.txt" 2>&1); then echo landlock:off; else echo "landlock:on $out"; fi; ` +
		`echo own > "$TMPDIR/own" && cat "$TMPDIR/own" && echo owntmp:ok`
}

// TestEscapeNamespacePartRefused: with every part, a command finds each in force; with
// one part refused (KIMI_RUN_NS=PART, which the launcher takes as the machine's refusal),
// the run warns once naming that part, the part is gone, and Landlock and every other part
// still hold. userns is the refusal of the user and mount namespaces, and so of every part.
func TestEscapeNamespacePartRefused(t *testing.T) {
	t.Parallel()
	needLandlock(t, 1)
	for _, c := range []struct {
		part string // left out; "" none
		warn string // what the one warning says
		off  []string
	}{
		{part: ""},
		{part: "pid", warn: "process namespace", off: []string{"pid"}},
		{part: "readonly", warn: "cannot be made read-only", off: []string{"readonly"}},
		{part: "tmp", warn: "/tmp of their own", off: []string{"tmp"}},
		{part: "userns", warn: "without namespaces", off: []string{"pid", "readonly", "tmp"}},
	} {
		t.Run("KIMI_RUN_NS="+c.part, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir() // HOME
			work, outside := filepath.Join(root, "work"), filepath.Join(root, "outside.txt")
			if err := os.Mkdir(work, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(outside, []byte("x\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			// Another run's temp dir in the shared temp dir, where this run makes its own.
			other, err := os.MkdirTemp("", "kimi-run-sandbox-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(other) })
			if err := os.WriteFile(filepath.Join(other, "secret.txt"), []byte("other run\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			srv := scripted.New(t,
				scripted.ToolCalls(scripted.CallID("probe", "Shell", fmt.Sprintf(`{"command":%q}`, nsProbe(outside, filepath.Join(other, "secret.txt"))))),
				scripted.Text("done"))
			env := map[string]string{"HOME": root}
			if c.part != "" {
				env["KIMI_RUN_NS"] = c.part
			}
			r := kimi(t, srv, invocation{dir: work, env: env, args: []string{"--output-format", "stream-json", "--sandbox", "workspace-write", "-p", "x"}})
			if r.code != 0 {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			evs := events(t, r.stdout)
			out, _ := results(evs)["probe"]["output"].(string)
			warned := nsWarnings(evs)
			if c.part == "" {
				if len(warned) > 0 {
					t.Skipf("this machine refuses parts of the namespaces: %q", warned)
				}
			} else if len(warned) != 1 || !strings.Contains(warned[0], c.warn) || !strings.Contains(warned[0], "left out by KIMI_RUN_NS") {
				t.Errorf("warnings: %q, want one naming %q", warned, c.warn)
			}
			for _, part := range []string{"pid", "readonly", "tmp"} {
				want := part + ":on"
				if strings.Contains(strings.Join(c.off, " "), part) {
					want = part + ":off"
				}
				if !strings.Contains(out, want) {
					t.Errorf("want %s:\n%s", want, out)
				}
			}
			if !strings.Contains(out, "landlock:on") || !writeRefused(out) || exists(filepath.Join(root, "new.txt")) {
				t.Errorf("a file was made outside the writable dirs:\n%s", out)
			}
			if !strings.Contains(out, "own\nowntmp:ok") {
				t.Errorf("the run's own TMPDIR does not work:\n%s", out)
			}
		})
	}
}

// TestEscapeOwnTmp: a confined command sees a /tmp of the run's own. What another run keeps
// in the shared temp dir (its temp dir, its proxy's socket folder, the socket in it) is
// out of its sight: it can neither list nor reach them. Its own TMPDIR, the work dir and
// an --add-dir (all in the shared temp dir here) work as before, HOME (there too) reads.
func TestEscapeOwnTmp(t *testing.T) {
	t.Parallel()
	needLandlock(t, 1)
	root, added, home := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "profile"), []byte("home file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "in-work"), []byte("work file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	otherTmp, err := os.MkdirTemp("", "kimi-run-sandbox-")
	if err != nil {
		t.Fatal(err)
	}
	otherProxy, err := os.MkdirTemp("", "kimi-run-proxy-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(otherTmp); os.RemoveAll(otherProxy) })
	ln, err := net.Listen("unix", filepath.Join(otherProxy, "proxy.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	shared := filepath.Dir(otherTmp)
	cmd := fmt.Sprintf(`ls -a %[1]s | sed 's/^/listed /'; `+
		`for p in %[2]s %[3]s %[3]s/proxy.sock; do if [ -e $p ]; then echo "reached $p"; fi; done; `+
		`echo mine > "$TMPDIR/mine" && cat "$TMPDIR/mine" && echo tmpdir:ok; `+
		`cat in-work && echo w > made && echo work:ok; touch %[4]s/made && echo added:ok; cat %[5]s/profile && echo home:ok; `+
		`touch %[5]s/new 2>&1 || echo home:read-only`,
		shared, otherTmp, otherProxy, added, home)
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.CallID("look", "Shell", fmt.Sprintf(`{"command":%q}`, cmd))),
		scripted.Text("done"))
	r := kimi(t, srv, invocation{dir: root, env: map[string]string{"HOME": home}, args: []string{"--output-format", "stream-json", "--sandbox", "workspace-write", "--add-dir", added, "-p", "x"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	evs := events(t, r.stdout)
	if w := nsWarnings(evs); len(w) > 0 {
		t.Skipf("no /tmp of the run's own here: %q", w)
	}
	out, _ := results(evs)["look"]["output"].(string)
	for _, name := range []string{filepath.Base(otherTmp), filepath.Base(otherProxy)} {
		if strings.Contains(out, "listed "+name) {
			t.Errorf("the command lists another run's %s:\n%s", name, out)
		}
	}
	if strings.Contains(out, "reached") {
		t.Errorf("the command reaches another run's files:\n%s", out)
	}
	for _, want := range []string{"mine\ntmpdir:ok", "work file\nwork:ok", "added:ok", "home file\nhome:ok", "home:read-only"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q:\n%s", want, out)
		}
	}
	for _, f := range []string{filepath.Join(root, "made"), filepath.Join(added, "made")} {
		if !exists(f) {
			t.Errorf("%s was not made", f)
		}
	}
}

// TestNamespacePartsUnknown: KIMI_RUN_NS naming no part is a usage error that lists them.
func TestNamespacePartsUnknown(t *testing.T) {
	t.Parallel()
	needLandlock(t, 1)
	r := kimi(t, nil, invocation{env: map[string]string{"KIMI_RUN_NS": "pid,proc"}, args: []string{"--sandbox", "workspace-write", "-p", "x"}})
	if r.code != 2 || !strings.Contains(r.stderr, `KIMI_RUN_NS: "proc" is no part`) || !strings.Contains(r.stderr, "userns, pid, readonly, tmp") {
		t.Errorf("exit %d, stderr %q; want 2 and the parts", r.code, r.stderr)
	}
}

// TestOwnTmpNotOverTheWorkDir: where the work dir is the shared temp dir itself, the run
// gets no /tmp of its own (it would hide the work dir): one warning says why, and the
// work dir stays in sight and writable.
func TestOwnTmpNotOverTheWorkDir(t *testing.T) {
	t.Parallel()
	needLandlock(t, 1)
	work := os.TempDir()
	name := fmt.Sprintf("own-tmp-%d", os.Getpid())
	t.Cleanup(func() { os.Remove(filepath.Join(work, name)) })
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.CallID("w", "Shell", fmt.Sprintf(`{"command":"echo w > %s && cat %[1]s"}`, name))),
		scripted.Text("done"))
	// (--files-changed tools: no walk of a dir other tests write in.)
	r := kimi(t, srv, invocation{dir: work, args: []string{"--output-format", "stream-json", "--sandbox", "workspace-write", "--files-changed", "tools", "-p", "x"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	evs := events(t, r.stdout)
	warned := nsWarnings(evs)
	if len(warned) != 1 || !strings.Contains(warned[0], "/tmp of their own") || !strings.Contains(warned[0], "holds the shared temp dir") {
		t.Errorf("warnings: %q, want one: no /tmp of their own, and why", warned)
	}
	if out, _ := results(evs)["w"]["output"].(string); !strings.Contains(out, "succeeded") || !exists(filepath.Join(work, name)) {
		t.Errorf("the work dir was not writable: %s", out)
	}
}
