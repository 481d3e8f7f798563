package run_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// readmeBlock returns the first fenced sh block of README.md after the line after.
func readmeBlock(t *testing.T, after string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(raw), after)
	if !ok {
		t.Fatalf("README.md has no %q", after)
	}
	_, rest, _ = strings.Cut(rest, "```sh\n")
	block, _, _ := strings.Cut(rest, "```")
	return block
}

// TestREADMERecommendedCIInvocation runs the README's recommended CI invocation as a shell
// script on a "fresh runner": a HOME without ~/.cache/go-build (issue 21 #5). It must run,
// and its case statement must report the outcome and keep the exit code. The checkout is a
// git repository, and the events.ndjson the script writes into it is kimi-run's own output,
// not a change of the run.
func TestREADMERecommendedCIInvocation(t *testing.T) {
	t.Parallel()
	needLandlock(t, 4)
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("the README's script uses jq")
	}
	script := readmeBlock(t, "A recommended CI invocation:")
	schema := `{"type":"object","properties":{"changed":{"type":"array","items":{"type":"string"}}},"required":["changed"]}`
	tests := []struct {
		name   string
		reply  []scripted.Response
		code   int
		stdout string
		files  string
	}{
		{name: "done", reply: []scripted.Response{scripted.ToolCalls(scripted.Call("Shell", `{"command":"echo package a > a.go"}`)),
			scripted.Text(`{"changed":["a.go"]}`)}, code: 0, stdout: `{"changed":["a.go"]}`, files: "a.go created +1 -0"},
		{name: "key refused", reply: scripted.Scenario(t, "unauthorized"), code: 5, stdout: "the provider refused the key"},
		// --fail-on-denial: the push was refused, so a valid report is not a success.
		{name: "refused", reply: []scripted.Response{scripted.ToolCalls(scripted.Call("Shell", `{"command":"git push origin HEAD"}`)),
			scripted.Text(`{"changed":[]}`)}, code: 9, stdout: "done, but refused:\nShell by Shell(git push*) (rules)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := scripted.New(t, tt.reply...)
			dir := gitRepo(t, map[string]string{"report.schema.json": schema})
			home := t.TempDir()
			cmd := exec.Command("sh", "-c", script)
			cmd.Dir = dir
			cmd.Env = []string{
				"PATH=" + filepath.Dir(binary) + string(os.PathListSeparator) + os.Getenv("PATH"),
				"HOME=" + home, "KIMI_API_KEY=" + testKey, "KIMI_MODEL_NAME=test-model", "KIMI_BASE_URL=" + srv.URL(),
				"KIMI_RUN_NO_ROOT_WARNING=1",
			}
			cmd.Env = append(cmd.Env, coverEnv()...)
			r := runCmd(t, cmd)
			if r.code != tt.code || !strings.Contains(r.stdout, tt.stdout) {
				t.Fatalf("exit %d, want %d; stdout %q, want %q\nstderr:\n%s", r.code, tt.code, r.stdout, tt.stdout, r.stderr)
			}
			if fi, err := os.Stat(filepath.Join(home, ".cache", "go-build")); err != nil || !fi.IsDir() {
				t.Errorf("the --add-dir cache dir was not created: %v", err)
			}
			if !strings.Contains(r.stderr, "did not exist: created it") {
				t.Errorf("no warning about the created --add-dir:\n%s", r.stderr)
			}
			res := lastResult(t, result{stdout: ciFileText(t, filepath.Join(dir, "events.ndjson")), code: r.code})
			if got := strings.Join(changedFiles(t, res), "|"); got != tt.files {
				t.Errorf("files_changed = %q, want %q", got, tt.files)
			}
		})
	}
}

func ciFileText(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestAddDirMissingIsCreated: a missing --add-dir is created with a warning, in both
// output formats, without the sandbox too (issue 21 #5).
func TestAddDirMissingIsCreated(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"text", "stream-json"} {
		t.Run(format, func(t *testing.T) {
			missing := filepath.Join(t.TempDir(), "cache", "go-build")
			srv := scripted.New(t, scripted.Text("done"))
			r := kimi(t, srv, invocation{args: []string{"--output-format", format, "--add-dir", missing, "-p", "x"}})
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			if fi, err := os.Stat(missing); err != nil || !fi.IsDir() {
				t.Errorf("not created: %v", err)
			}
			if !strings.Contains(r.stderr+r.stdout, "--add-dir "+missing+" did not exist: created it") {
				t.Errorf("no warning:\n%s\n%s", r.stdout, r.stderr)
			}
			// The agent is told about it like any other added directory.
			if sys := srv.Requests()[0].Messages()[0]["content"].(string); !strings.Contains(sys, missing) {
				t.Errorf("the system prompt does not list %s", missing)
			}
		})
	}
}
