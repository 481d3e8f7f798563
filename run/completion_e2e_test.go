package run_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/alecthomas/kong"
	"github.com/kimi-run/kimi-run/agentspec"
	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
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
			for _, hidden := range []string{"retry-base-delay", "stall-notice"} {
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

// TestCompletionInTheShells loads each script in its shell and asks for completions the
// way the shell does on Tab: flag values (enums, and --agent's built-in agents), the
// completion command's words, --man-page (issue 29 #4).
func TestCompletionInTheShells(t *testing.T) {
	t.Parallel()
	formats, sandboxes, agents := enumOf(t, "output-format"), enumOf(t, "sandbox"), agentspec.Builtins
	t.Run("bash", func(t *testing.T) {
		t.Parallel()
		bash := testkit.NeedShell(t, "bash")
		script := completionFile(t, "bash")
		for _, tc := range []struct {
			words []string
			want  []string
		}{
			{[]string{"kimi-run", "--output-format", ""}, formats},
			{[]string{"kimi-run", "--sandbox", ""}, sandboxes},
			{[]string{"kimi-run", "--agent", ""}, slices.Sorted(slices.Values(agents))},
			{[]string{"kimi-run", "--sandbox-n"}, []string{"--sandbox-network"}},
			{[]string{"kimi-run", "-p", "fix", "--max-st"}, []string{"--max-steps", "--max-steps-per-turn"}},
			{[]string{"kimi-run", "--man"}, []string{"--man-page"}},
			{[]string{"kimi-run", "compl"}, []string{"completion"}},
			{[]string{"kimi-run", "completion", ""}, []string{"bash", "fish", "zsh"}},
		} {
			if got := testkit.BashCompletions(t, bash, script, "_kimi_run", tc.words...); !slices.Equal(got, tc.want) {
				t.Errorf("bash completes %q to %q, want %q", tc.words, got, tc.want)
			}
		}
	})
	t.Run("zsh", func(t *testing.T) {
		t.Parallel()
		zsh := testkit.NeedShell(t, "zsh")
		script := completionFile(t, "zsh")
		tests := []struct {
			line string
			want []string
		}{
			{"kimi-run --output-format ", formats},
			{"kimi-run --agent ", slices.Sorted(slices.Values(agents))},
			{"kimi-run --man", []string{"--man-page"}},
			{"kimi-run compl", []string{"completion"}},
			{"kimi-run completion ", []string{"bash", "fish", "zsh"}},
		}
		var lines []string
		for _, tc := range tests {
			lines = append(lines, tc.line)
		}
		for i, got := range testkit.ZshCompletions(t, zsh, script, lines...) {
			if !slices.Equal(got, tests[i].want) {
				t.Errorf("zsh completes %q to %q, want %q", tests[i].line, got, tests[i].want)
			}
		}
	})
	t.Run("fish", func(t *testing.T) {
		t.Parallel()
		fish := testkit.NeedShell(t, "fish")
		script := completionFile(t, "fish")
		values := func(line string) []string {
			var out []string
			for _, l := range testkit.FishCompletions(t, fish, script, line) {
				v, _, _ := strings.Cut(l, "\t")
				out = append(out, v)
			}
			return out
		}
		for _, tc := range []struct {
			line string
			want []string
		}{
			{"kimi-run --output-format ", formats},
			{"kimi-run --agent ", slices.Sorted(slices.Values(agents))},
			{"kimi-run --sandbox-n", []string{"--sandbox-network"}},
			{"kimi-run --man", []string{"--man-page"}},
			{"kimi-run compl", []string{"completion"}},
			{"kimi-run completion ", []string{"bash", "fish", "zsh"}},
		} {
			if got := values(tc.line); !slices.Equal(got, tc.want) {
				t.Errorf("fish completes %q to %q, want %q", tc.line, got, tc.want)
			}
		}
		// Each value of every enum flag has a description of its own.
		for _, flag := range []string{"output-format", "log-level", "sandbox", "replay-mode", "input-format"} {
			seen := map[string]string{}
			for _, l := range testkit.FishCompletions(t, fish, script, "kimi-run --"+flag+" ") {
				v, desc, _ := strings.Cut(l, "\t")
				if other, dup := seen[desc]; dup || desc == "" {
					t.Errorf("fish: --%s %s has the description %q, as %s does", flag, v, desc, other)
				}
				seen[desc] = v
			}
		}
	})
}

// TestManPage: `kimi-run --man-page` is a man(7) page naming every visible flag, with a
// date, that mandoc checks without a warning and man and mandoc render within 80 columns
// (issue 29 #4: no date, five lines past 80 columns).
func TestManPage(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t)
	r := runExact(t, srv, "--man-page")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if !regexp.MustCompile(`^\.TH KIMI\\-RUN 1 "\d{4}-\d{2}-\d{2}" "kimi\\-run `).MatchString(r.stdout) {
		t.Errorf("the .TH line has no date: %.80q", r.stdout)
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
	page := filepath.Join(t.TempDir(), "kimi-run.1")
	os.WriteFile(page, []byte(r.stdout), 0o644)
	render := func(name string, args ...string) string {
		cmd := exec.Command(name, args...)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "MANWIDTH=80", "MAN_KEEP_FORMATTING=0", "PAGER=cat", "MANPAGER=cat", "LC_ALL=C.UTF-8"}
		var out, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &stderr
		// mandoc -T lint exits 0 only without warnings; STYLE notes are reported too.
		if err := cmd.Run(); err != nil || stderr.Len() > 0 {
			t.Errorf("%s %v: %v\n%s%s", name, args, err, stderr.String(), out.String())
		}
		return out.String()
	}
	checked := 0
	if _, err := exec.LookPath("mandoc"); err == nil {
		render("mandoc", "-T", "lint", "-W", "style", page)
		checkWidth(t, "mandoc", render("mandoc", "-T", "utf8", "-O", "width=80", page))
		checked++
	} else if os.Getenv("KIMI_RUN_REQUIRE_MANDOC") != "" {
		t.Error("mandoc is not installed")
	}
	if _, err := exec.LookPath("man"); err == nil {
		out := render("man", "--warnings", "-E", "UTF-8", "-l", page)
		checkWidth(t, "man", out)
		if !strings.Contains(out, "--output-format") {
			t.Errorf("the rendered page lacks --output-format:\n%.400s", out)
		}
		checked++
	}
	if checked == 0 {
		t.Log("neither mandoc nor man is installed: the page was not rendered")
	}
}

// checkWidth fails for a rendered line wider than 80 columns (overstrikes removed).
func checkWidth(t *testing.T, by, rendered string) {
	t.Helper()
	bs := regexp.MustCompile(".\x08")
	for _, l := range strings.Split(rendered, "\n") {
		l = bs.ReplaceAllString(l, "")
		if n := utf8.RuneCountInString(strings.ReplaceAll(l, "\t", "        ")); n > 80 {
			t.Errorf("%s renders a line of %d columns:\n%s", by, n, l)
		}
	}
}

// TestReadmeCompletionInstall runs docs/install.md's install lines for the completions and the
// man page, as written, in a fresh HOME with kimi-run in ~/.local/bin, then checks each
// shell and man find what they wrote where they look by themselves (issue 29 #4: the fish
// line lacked mkdir -p; man found the page only with ~/.local/bin on PATH). Then it runs
// them again as a user who installed from a checkout (kimi-run on PATH from there, no
// ~/.local/bin): `man kimi-run` in that shell must find the page too.
func TestReadmeCompletionInstall(t *testing.T) {
	t.Parallel()
	needBash(t)
	section := testkit.DocSection(t, filepath.Join("..", "docs", "install.md"), "## Shell completions and the man page")
	_, block, _ := strings.Cut(section, "```sh\n")
	block, _, _ = strings.Cut(block, "```")
	if !strings.Contains(block, "kimi-run completion fish") {
		t.Fatalf("no install lines found:\n%s", block)
	}
	home := t.TempDir()
	bin := filepath.Join(home, ".local", "bin")
	os.MkdirAll(bin, 0o755)
	if out, err := exec.Command("cp", binary, filepath.Join(bin, "kimi-run")).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	env := []string{"HOME=" + home, "PATH=" + bin + ":" + os.Getenv("PATH"), "TERM=dumb", "MANPAGER=cat", "PAGER=cat"}
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", block)
	cmd.Env, cmd.Dir = append(env, coverEnv()...), home
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("docs/install.md's install lines failed: %v\n%s", err, out)
	}
	for _, f := range []string{".local/share/bash-completion/completions/kimi-run", ".zfunc/_kimi-run",
		".config/fish/completions/kimi-run.fish", ".local/share/man/man1/kimi-run.1"} {
		if fi, err := os.Stat(filepath.Join(home, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s was not written: %v", f, err)
		}
	}
	run := func(name string, args ...string) string {
		c := exec.Command(name, args...)
		c.Env, c.Dir = env, home
		out, err := c.CombinedOutput()
		if err != nil {
			t.Errorf("%s %q: %v\n%s", name, args, err, out)
		}
		return string(out)
	}
	if _, err := exec.LookPath("man"); err == nil {
		if got := strings.TrimSpace(run("man", "-w", "kimi-run")); got != filepath.Join(home, ".local/share/man/man1/kimi-run.1") {
			t.Errorf("man -w kimi-run = %q", got)
		}
	}
	if _, err := exec.LookPath("man"); err == nil {
		checkout, fresh := t.TempDir(), t.TempDir()
		if out, err := exec.Command("cp", binary, filepath.Join(checkout, "kimi-run")).CombinedOutput(); err != nil {
			t.Fatalf("cp: %v\n%s", err, out)
		}
		cmd := exec.Command("bash", "-euo", "pipefail", "-c", `export PATH="$PWD:$PATH"; cd "$HOME"; `+block+"\nman -w kimi-run")
		cmd.Env = append([]string{"HOME=" + fresh, "PATH=" + os.Getenv("PATH"), "TERM=dumb", "MANPAGER=cat", "PAGER=cat"}, coverEnv()...)
		cmd.Dir = checkout
		out, err := cmd.CombinedOutput()
		if want := filepath.Join(fresh, ".local/share/man/man1/kimi-run.1"); err != nil || strings.TrimSpace(string(out)) != want {
			t.Errorf("installed from a checkout, man -w kimi-run: %v\n%s\nwant %s", err, out, want)
		}
	}
	if _, err := exec.LookPath("fish"); err == nil {
		// No source: fish finds the file in ~/.config/fish/completions on its own.
		if got := run("fish", "-c", "complete -C 'kimi-run --output-f'"); !strings.HasPrefix(got, "--output-format\t") {
			t.Errorf("fish did not load the installed completion: %q", got)
		}
	}
}
