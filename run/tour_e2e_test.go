package run_test

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

var update = flag.Bool("update", false, "re-record the cassettes in testdata/cassettes from the scripted server")

// tourAnswer is the tour's final answer.
const tourAnswer = "This checkout is **kimi-run**, the Go module `github.com/kimi-run/kimi-run`: a coding agent that runs one task " +
	"without a person present (in CI jobs, shell pipelines and cron), approves every tool call itself, writes plain text or " +
	"NDJSON events to stdout and exits with a code a pipeline can act on.\n\n" +
	"What you just watched was a replay: my replies came from testdata/cassettes/tour.jsonl, while the two tool calls " +
	"(Glob and Shell) ran for real in your checkout. Record a run of your own with --record FILE and replay it in CI " +
	"with --replay FILE; see docs/cassettes.md."

// shippedCassette is how one file of testdata/cassettes is recorded (go test ./run -run
// TestShippedCassettes -update) and what replaying it must give.
type shippedCassette struct {
	name   string
	script []scripted.Response
	args   []string
	code   int
	answer string
}

func shippedCassettes() []shippedCassette {
	return []shippedCassette{
		{
			name: "tour",
			script: []scripted.Response{
				scripted.Reply(scripted.Say("Let me look at the checkout first. "), scripted.Call("Glob", `{"pattern":"*.mod"}`)),
				scripted.Reply(scripted.Say("It is a Go module; its first line names it. "), scripted.Call("Shell", `{"command":"head -n 1 go.mod"}`)),
				scripted.Text(tourAnswer),
			},
			args:   []string{"-p", "What is this project?"},
			answer: tourAnswer,
		},
		{
			name:   "transient",
			script: []scripted.Response{scripted.Status(503, scripted.ErrorBody("engine_overloaded_error", "The engine is currently overloaded, please try again later")).Header("Retry-After", "2").Forever()},
			args:   []string{"--max-retries", "2", "-p", "Fix the failing test."},
			code:   75,
		},
	}
}

// repoFile reads a file of the repository.
func repoFile(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkoutLike is a fresh work dir with the repository files the shipped cassettes' tools
// touch, as in a clone.
func checkoutLike(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), repoFile(t, "go.mod"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestShippedCassettes(t *testing.T) {
	t.Parallel()
	for _, c := range shippedCassettes() {
		t.Run(c.name, func(t *testing.T) {
			path, err := filepath.Abs(filepath.Join("..", "testdata", "cassettes", c.name+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			if *update {
				tmp := filepath.Join(t.TempDir(), c.name+".jsonl")
				srv := scripted.New(t, c.script...)
				r := kimi(t, srv, invocation{dir: checkoutLike(t), env: map[string]string{"KIMI_MODEL_NAME": "kimi-k2-turbo-preview"},
					args: append([]string{"--record", tmp}, c.args...)})
				if r.code != c.code {
					t.Fatalf("recording: exit %d, want %d\n%s", r.code, c.code, r.stderr)
				}
				b, err := os.ReadFile(tmp)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r := kimi(t, nil, invocation{dir: checkoutLike(t), env: replayEnv,
				args: append([]string{"--output-format", "stream-json", "--replay", path, "--replay-speed", "0"}, c.args...)})
			if r.code != c.code {
				t.Fatalf("replay: exit %d, want %d\n%s\n(re-record with: go test ./run -run TestShippedCassettes -update)", r.code, c.code, r.stderr)
			}
			if res := lastResult(t, r); res["final_text"] != c.answer {
				t.Errorf("final_text = %q, want %q", res["final_text"], c.answer)
			}
		})
	}
}

// TestREADMEFirstCommand runs the README's first command exactly as written, in a fresh
// directory holding what a clone has (go.mod and the cassette), with no key, no endpoint
// and no model in the environment.
func TestREADMEFirstCommand(t *testing.T) {
	t.Parallel()
	build, args := readmeFirstCommand(t)
	if build != "go build -o kimi-run ." {
		t.Fatalf("the README's first command does not start with the build: %q", build)
	}
	if len(args) == 0 || args[0] != "./kimi-run" {
		t.Fatalf("the README's first command does not run ./kimi-run: %q", args)
	}
	dir := checkoutLike(t)
	for i, a := range args {
		if a == "--replay" && i+1 < len(args) {
			dst := filepath.Join(dir, filepath.FromSlash(args[i+1]))
			os.MkdirAll(filepath.Dir(dst), 0o755)
			if err := os.WriteFile(dst, repoFile(t, args[i+1]), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	cmd := exec.Command(binary, args[1:]...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	cmd.Env = append(cmd.Env, coverEnv()...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%q: %v\nstdout:\n%s\nstderr:\n%s", args, err, stdout.String(), stderr.String())
	}
	if stdout.String() != tourAnswer+"\n" {
		t.Errorf("stdout = %q, want the tour's answer", stdout.String())
	}
	for _, want := range []string{"replaying", "Glob", "*.mod -> ok", "Shell", "head -n 1 go.mod -> ok"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
}

// readmeFirstCommand returns the first line of the README's first sh block, split at
// "&&": the build, and the arguments of the run.
func readmeFirstCommand(t *testing.T) (string, []string) {
	t.Helper()
	readme := string(repoFile(t, "README.md"))
	_, block, ok := strings.Cut(readme, "```sh\n")
	if !ok {
		t.Fatal("README.md has no sh block")
	}
	line, _, _ := strings.Cut(block, "\n")
	build, run, ok := strings.Cut(line, "&&")
	if !ok {
		t.Fatalf("the README's first command has no &&: %q", line)
	}
	return strings.TrimSpace(build), shellWords(t, run)
}

// shellWords splits a simple shell command line: words, single and double quotes, and a
// trailing # comment.
func shellWords(t *testing.T, s string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' || c == '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				t.Fatalf("unbalanced quote in %q", s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '#' && !inWord:
			i = len(s)
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}
