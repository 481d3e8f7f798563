//go:build linux

package run_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

func reverse(s string) string {
	r := []rune(s)
	slices.Reverse(r)
	return string(r)
}

// Issue 26 #1: a command read the key from kimi-run's own environment,
// `tr '\0' '\n' </proc/$PPID/environ | grep KEY | rev`, with or without the sandbox, and
// from the watchdog's; an api_key given inline with --config was in /proc/$PPID/cmdline.
// The reversed key passes any scrubbing, so it must not be there to read: kimi-run
// overwrites its secrets in its own environment and argument blocks once it knows them,
// and its launcher processes (a command's parent, and under the sandbox its grandparent)
// start with no environment at all. The command walks up from its parent through them to
// kimi-run and reads each.
func TestOwnProcessHidesTheKey(t *testing.T) {
	t.Parallel()
	const inlineKey = "sk-inline-config-key-55555"
	attack := `p=$PPID; while :; do ` +
		`echo "== $(tr '\0' ' ' </proc/$p/cmdline | cut -c1-40)"; ` +
		`tr '\0' '\n' </proc/$p/environ | grep -E 'KEY|COPY' | rev; tr '\0' '\n' </proc/$p/cmdline | rev; ` +
		`case "$(tr '\0' ' ' </proc/$p/cmdline)" in *__kimi-run-launcher*) p=$(awk '{print $4}' /proc/$p/stat);; *) break;; esac; done`
	for _, sandboxed := range []bool{false, true} {
		t.Run(fmt.Sprintf("sandbox=%v", sandboxed), func(t *testing.T) {
			t.Parallel()
			if sandboxed {
				needLandlock(t, 1)
			}
			srv := scripted.New(t,
				scripted.ToolCalls(scripted.CallID("c1", "Shell", fmt.Sprintf(`{"command":%q}`, attack))),
				scripted.Text("done"),
			)
			args := []string{"--config", `{"providers":{"p":{"api_key":"` + inlineKey + `"}}}`, "-p", "read the key"}
			if sandboxed {
				args = append(args, "--sandbox", "workspace-write")
			}
			// Without the commands' process namespace, where kimi-run and its launchers are
			// in sight (in it they are not: TestEscapeNamespaces).
			r := kimi(t, srv, invocation{proc: true, env: map[string]string{"MY_COPY": testKey, "KIMI_RUN_NS": "off"}, args: args})
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			out := lastToolOutput(t, srv, 1)
			// The command read the blocks of kimi-run and of its launcher.
			for _, want := range []string{reverse("KIMI_API_KEY=****"), reverse("MY_COPY=****"), reverse(`"api_key":"****`), "__kimi-run-launcher"} {
				if !strings.Contains(out, want) {
					t.Errorf("the command did not read what the test expects (%q):\n%s", want, out)
				}
			}
			for _, k := range []string{testKey, inlineKey} {
				for _, form := range []string{k, reverse(k), k[8:], reverse(k[8:])} {
					if strings.Contains(out, form) || strings.Contains(string(srv.Requests()[1].Raw), form) || strings.Contains(r.stdout+r.stderr, form) {
						t.Errorf("the key %q reached the model or the output as %q:\n%s", k, form, out)
					}
				}
			}
			if !strings.Contains(r.stderr, "--config holds a credential (providers.p.api_key)") {
				t.Errorf("no warning about the key on the command line:\n%s", r.stderr)
			}
		})
	}
}

// The same from another run of the same user: a command starts a second kimi-run with a
// key of its own and reads that process's environment and command line once it has
// started (its model call then hangs until the command ends it).
func TestOtherRunsHideTheirKeys(t *testing.T) {
	t.Parallel()
	const otherKey = "sk-other-run-key-42424242"
	other := scripted.New(t, scripted.Reply(scripted.Hang())) // the other run's model
	attack := fmt.Sprintf(`KIMI_API_KEY=%s KIMI_BASE_URL=%s %s -p hi --no-session --config '{"providers":{"p":{"api_key":"%s"}}}' 2>other.err & pid=$!; `+
		`for i in $(seq 600); do grep -q 'start model' other.err && break; sleep 0.05; done; `+
		`echo "== $(head -c 300 other.err)"; tr '\0' '\n' </proc/$pid/environ | grep -E 'KIMI_API_KEY' | rev; tr '\0' '\n' </proc/$pid/cmdline | rev; kill $pid; wait`,
		otherKey, other.URL(), binary, otherKey+"-inline")
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.CallID("c1", "Shell", fmt.Sprintf(`{"command":%q}`, attack))),
		scripted.Text("done"),
	)
	r := kimi(t, srv, invocation{args: []string{"-p", "read the other run"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	out := lastToolOutput(t, srv, 1)
	if !strings.Contains(out, "start model") || !strings.Contains(out, reverse("KIMI_API_KEY=")) {
		t.Fatalf("the command did not read the other run as the test expects:\n%s", out)
	}
	for _, form := range []string{otherKey, reverse(otherKey), reverse(otherKey + "-inline")} {
		if strings.Contains(out, form) {
			t.Errorf("the other run gave its key away as %q:\n%s", form, out)
		}
	}
}
