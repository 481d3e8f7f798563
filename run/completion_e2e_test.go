package run_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/run"
)

// runExact runs the binary with exactly args (kimi adds flags of its own) against srv.
func runExact(t *testing.T, srv *scripted.Server, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "KIMI_API_KEY=" + testKey,
		"KIMI_MODEL_NAME=test-model", "KIMI_BASE_URL=" + srv.URL(), "KIMI_RUN_NO_ROOT_WARNING=1"}
	cmd.Env = append(cmd.Env, coverEnv()...)
	return runCmd(t, cmd)
}

// enumOf lists the values the model accepts for flag, sorted.
func enumOf(t *testing.T, flag string) []string {
	t.Helper()
	var cli run.CLI
	p, err := config.NewParser(&cli, config.MapEnv{}, kong.Name("kimi-run"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range p.Model.Flags {
		if f.Name == flag {
			return slices.Sorted(slices.Values(f.EnumSlice()))
		}
	}
	t.Fatalf("no flag --%s", flag)
	return nil
}

// visibleFlags lists the long names --help shows, from the same kong model.
func visibleFlags(t *testing.T) []string {
	t.Helper()
	var cli run.CLI
	p, err := config.NewParser(&cli, config.MapEnv{}, kong.Name("kimi-run"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range p.Model.Flags {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	}
	if len(names) < 40 {
		t.Fatalf("only %d visible flags", len(names))
	}
	return names
}

// TestCompletionScriptsNameEveryFlag: `kimi-run completion SHELL` prints a script naming
// every visible flag, exits 0 and calls no model (issue 19 #3: it used to run "completion
// bash" as a prompt).
func TestCompletionScriptsNameEveryFlag(t *testing.T) {
	t.Parallel()
	flags := visibleFlags(t)
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t)
			r := runExact(t, srv, "completion", shell)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("%d model calls", n)
			}
			for _, f := range flags {
				if !strings.Contains(r.stdout, f) {
					t.Errorf("the %s script does not name --%s", shell, f)
				}
			}
			for _, hidden := range []string{"retry-base-delay", "man-page", "stall-notice"} {
				if strings.Contains(r.stdout, hidden) {
					t.Errorf("the %s script offers the hidden --%s", shell, hidden)
				}
			}
		})
	}
}

// TestCompletionKeepsPromptWords: only the exact two words are the completion command;
// every other prompt that starts with "completion" still goes to the model as written.
func TestCompletionKeepsPromptWords(t *testing.T) {
	t.Parallel()
	for _, words := range [][]string{
		{"completion", "of", "the", "parser"},
		{"completion", "bash", "scripts", "are", "broken"},
		{"completion", "powershell"},
		{"completion"},
	} {
		t.Run(strings.Join(words, "_"), func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.Text("ok"))
			r := runExact(t, srv, words...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			msgs := srv.Requests()[0].Messages()
			if got, want := msgs[len(msgs)-1]["content"], strings.Join(words, " "); got != want {
				t.Errorf("prompt sent = %q, want %q", got, want)
			}
		})
	}
	// And -p keeps the exact words a prompt too.
	srv := scripted.New(t, scripted.Text("ok"))
	if r := runExact(t, srv, "-p", "completion bash"); r.code != 0 || r.stdout != "ok\n" {
		t.Errorf("-p 'completion bash': exit %d, stdout %q", r.code, r.stdout)
	}
}

// needShell returns the path of shell, skipping the test when it is not installed unless
// KIMI_RUN_REQUIRE_SHELLS is set (CI installs bash, zsh and fish and sets it).
func needShell(t *testing.T, shell string) string {
	t.Helper()
	p, err := exec.LookPath(shell)
	if err != nil {
		if os.Getenv("KIMI_RUN_REQUIRE_SHELLS") != "" {
			t.Fatalf("%s is not installed", shell)
		}
		t.Skipf("%s is not installed", shell)
	}
	return p
}

// completionFile writes the script for shell to a file and returns its path.
func completionFile(t *testing.T, shell string) string {
	t.Helper()
	r := runExact(t, scripted.New(t), "completion", shell)
	if r.code != 0 {
		t.Fatalf("completion %s: exit %d\n%s", shell, r.code, r.stderr)
	}
	p := filepath.Join(t.TempDir(), "kimi-run."+shell)
	if err := os.WriteFile(p, []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func shellOut(t *testing.T, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "TERM=dumb"}
	cmd.Env = append(cmd.Env, coverEnv()...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}

// TestCompletionInTheShells loads each script in its shell and asks for completions the
// way the shell would on Tab.
func TestCompletionInTheShells(t *testing.T) {
	t.Parallel()
	t.Run("bash", func(t *testing.T) {
		bash := needShell(t, "bash")
		script := completionFile(t, "bash")
		for _, tc := range []struct{ words, want string }{
			{`kimi-run --output-format ""`, strings.Join(enumOf(t, "output-format"), " ")},
			{`kimi-run --sandbox ""`, strings.Join(enumOf(t, "sandbox"), " ")},
			{`kimi-run --sandbox-n`, "--sandbox-network"},
			{`kimi-run -p fix --max-st`, "--max-steps --max-steps-per-turn"},
		} {
			out := shellOut(t, bash, "-c", `source "$0"; COMP_WORDS=(`+tc.words+`); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); _kimi_run; printf '%s\n' "${COMPREPLY[@]}" | sort | paste -sd' '`, script)
			if got := strings.TrimSpace(out); got != tc.want {
				t.Errorf("bash completes %s to %q, want %q", tc.words, got, tc.want)
			}
		}
	})
	t.Run("zsh", func(t *testing.T) {
		zsh := needShell(t, "zsh")
		script := completionFile(t, "zsh")
		shellOut(t, zsh, "-n", script)
		// Loaded as a completion function, _arguments parses every spec; a bad one fails here.
		out := shellOut(t, zsh, "-c", `autoload -U compinit && compinit -u -D && source "$1" && print -r -- $_comps[kimi-run]`, "zsh", script)
		if strings.TrimSpace(out) != "_kimi-run" {
			t.Errorf("zsh did not register _kimi-run for kimi-run: %q", out)
		}
	})
	t.Run("fish", func(t *testing.T) {
		fish := needShell(t, "fish")
		script := completionFile(t, "fish")
		for _, tc := range []struct{ line, want string }{
			{"kimi-run --output-format ", strings.Join(enumOf(t, "output-format"), "\n")},
			{"kimi-run --sandbox-n", "--sandbox-network"},
		} {
			out := shellOut(t, fish, "--no-config", "-c", `source $argv[1]; complete -C $argv[2] | string replace -r '\t.*' '' | sort`, script, tc.line)
			if got := strings.TrimSpace(out); got != tc.want {
				t.Errorf("fish completes %q to %q, want %q", tc.line, got, tc.want)
			}
		}
	})
}

// TestManPage: `kimi-run --man-page` is a man(7) page naming every visible flag, and
// man renders it without warnings where man is installed.
func TestManPage(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t)
	r := runExact(t, srv, "--man-page")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if !strings.HasPrefix(r.stdout, ".TH KIMI\\-RUN 1 ") {
		t.Errorf("no .TH line: %.80q", r.stdout)
	}
	for _, sec := range []string{".SH NAME", ".SH SYNOPSIS", ".SH OPTIONS", ".SH EXIT STATUS", ".SH ENVIRONMENT"} {
		if !strings.Contains(r.stdout, sec) {
			t.Errorf("no %s section", sec)
		}
	}
	for _, f := range visibleFlags(t) {
		if !strings.Contains(r.stdout, `\-\-`+strings.ReplaceAll(f, "-", `\-`)) {
			t.Errorf("the man page does not name --%s", f)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d model calls", n)
	}
	if _, err := exec.LookPath("man"); err != nil {
		return
	}
	page := filepath.Join(t.TempDir(), "kimi-run.1")
	os.WriteFile(page, []byte(r.stdout), 0o644)
	cmd := exec.Command("man", "--warnings", "-E", "UTF-8", "-l", page)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "MANWIDTH=80", "MAN_KEEP_FORMATTING=0", "PAGER=cat", "MANPAGER=cat"}
	cmd.Env = append(cmd.Env, coverEnv()...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Errorf("man: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(out.String(), "--output-format") {
		t.Errorf("the rendered page lacks --output-format:\n%.400s", out.String())
	}
}
