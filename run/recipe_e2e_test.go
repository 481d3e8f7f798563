package run_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// readmeCommand returns the arguments of the README's command line that starts with
// prefix, comment dropped and double quotes honoured, so a test runs the recipe as
// written rather than a copy that could drift from it.
func readmeCommand(t *testing.T, prefix string) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(raw), "\n") {
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		line, _, _ = strings.Cut(line, " #")
		var args []string
		var cur strings.Builder
		quoted, started := false, false
		for _, r := range strings.TrimSpace(line) {
			switch {
			case r == '"':
				quoted, started = !quoted, true
			case r == ' ' && !quoted:
				if started {
					args = append(args, cur.String())
					cur.Reset()
					started = false
				}
			default:
				cur.WriteRune(r)
				started = true
			}
		}
		if started {
			args = append(args, cur.String())
		}
		return args[1:] // without "kimi-run"
	}
	t.Fatalf("README.md has no line starting %q", prefix)
	return nil
}

// TestREADMERecordReplayRecipe follows the README's record-and-replay recipe with an agent
// that runs `go test`, whose output holds its timing ("ok example.com/w 0.012s") and is
// "(cached)" the second time: the documented replay must still pass (issue 21 #1).
func TestREADMERecordReplayRecipe(t *testing.T) {
	t.Parallel()
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	dir := workDir(t, map[string]string{
		"go.mod":    "module example.com/w\n\ngo 1.21\n",
		"w_test.go": "package w\n\nimport \"testing\"\n\nfunc TestW(t *testing.T) {}\n",
	})
	// The tests' own build cache, so that `go test` does not build the standard library.
	env := map[string]string{"GOCACHE": strings.TrimSpace(string(gocache)), "GOTOOLCHAIN": "local", "GOFLAGS": "-mod=mod"}
	cas := filepath.Join(t.TempDir(), "fix.jsonl")
	withCassette := func(args []string) []string {
		out := make([]string, len(args))
		for i, a := range args {
			out[i] = strings.ReplaceAll(a, "fix.jsonl", cas)
		}
		return out
	}
	recordArgs := readmeCommand(t, "kimi-run --record fix.jsonl")
	replayArgs := readmeCommand(t, "kimi-run --replay fix.jsonl")

	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call("Shell", `{"command":"go test ./..."}`)),
		scripted.Text("The tests pass."),
	)
	rec := kimi(t, srv, invocation{dir: dir, env: env, args: withCassette(recordArgs)})
	if rec.code != 0 || rec.stdout != "The tests pass.\n" {
		t.Fatalf("recording: exit %d, stdout %q\n%s", rec.code, rec.stdout, rec.stderr)
	}
	msgs := srv.Requests()[1].Messages()
	if out, _ := msgs[len(msgs)-1]["content"].(string); !strings.Contains(out, "ok") || !strings.Contains(out, "example.com/w") {
		t.Fatalf("the recorded run's go test printed %q", out)
	}

	replayEnv := map[string]string{"KIMI_API_KEY": "", "KIMI_BASE_URL": "", "KIMI_MODEL_NAME": ""}
	for k, v := range env {
		replayEnv[k] = v
	}
	rep := kimi(t, nil, invocation{dir: dir, env: replayEnv, args: withCassette(replayArgs)})
	if rep.code != 0 || rep.stdout != "The tests pass.\n" {
		t.Errorf("the README's replay: exit %d, stdout %q\n%s", rep.code, rep.stdout, rep.stderr)
	}
	// The premise holds: go test's output did change, as an exact replay shows, with a
	// message that says how to relax it.
	exact := kimi(t, nil, invocation{dir: dir, env: replayEnv, args: append(withCassette(replayArgs), "--replay-mode", "exact")})
	if exact.code != 1 || !strings.Contains(exact.stderr, "the result of Shell") || !strings.Contains(exact.stderr, "--replay-mode strict (the default) leaves tool output out") {
		t.Errorf("exact replay: exit %d, want 1 naming the Shell result and how to relax it\n%s", exact.code, exact.stderr)
	}
}
