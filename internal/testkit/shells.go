package testkit

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// NeedShell returns the path of shell, skipping the test when it is not installed unless
// KIMI_RUN_REQUIRE_SHELLS is set (CI installs bash, zsh and fish and sets it).
func NeedShell(t testing.TB, shell string) string {
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

// shellRun runs a shell with a clean environment and a bound on its time, and returns
// what it printed.
func shellRun(t testing.TB, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "TERM=dumb"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}

// BashCompletions loads script into bash and returns, sorted, what its function fn
// offers for the command line words, the last of which is the word being completed.
func BashCompletions(t testing.TB, bash, script, fn string, words ...string) []string {
	t.Helper()
	args := append([]string{"-c", `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); ` + fn + `; printf '%s\n' "${COMPREPLY[@]}"`,
		"bash", script}, words...)
	out := shellRun(t, bash, args...)
	return sortedLines(out)
}

// FishCompletions loads script into fish and returns, sorted, what `complete -C` offers
// for line: "value<TAB>description" lines.
func FishCompletions(t testing.TB, fish, script, line string) []string {
	t.Helper()
	return sortedLines(shellRun(t, fish, "--no-config", "-c", `source $argv[1]; complete -C $argv[2]`, script, line))
}

// zshCapture drives an interactive zsh in a pseudo-terminal (zsh/zpty): it loads the
// script under compinit, records every match the completion system adds (compadd calls
// that only compute, with -O, -A or -D, pass through), and for each line types it and a
// Tab, then clears the line. Nothing is sent ahead of time: each command ends by printing
// a marker, and Tab is bound to a widget that completes and then prints one, and the
// driver reads up to the marker before it sends more (no sleeping, and no typeahead, which
// zle may treat differently).
const zshCapture = `zmodload zsh/zpty || exit 3
out=$1 script=$2
shift 2
zpty z zsh -f -i
n=0
step() { n=$((n+1)); zpty -w z "$1; print -r -- STEP\$(($n*7))DONE"; zpty -r z got "*STEP$(($n*7))DONE*" }
step "autoload -U compinit && compinit -u -D"
step "source ${(q)script}"
step "compadd() { if (( \${@[(I)-[ODA]]} )); then builtin compadd \"\$@\"; return; fi; local -a m; builtin compadd -O m \"\$@\"; print -rl -- \$m >> ${(q)out}; builtin compadd \"\$@\" }"
step "capture-tab() { zle expand-or-complete; print -n -- TAB\$((6*7))DONE >/dev/tty }; zle -N capture-tab; bindkey '^I' capture-tab"
for line in "$@"; do
  step "print -r -- @@NEXT@@ >> ${(q)out}"
  zpty -w -n z "$line"$'\t'
  zpty -r z got '*TAB42DONE*'
  zpty -w -n z $'\C-e\C-u'
done
step true
zpty -d z
`

// ZshCompletions returns, for each line, the matches zsh's completion system offers with
// script loaded as the completion of its command, sorted.
func ZshCompletions(t testing.TB, zsh, script string, lines ...string) [][]string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "matches")
	if err := os.WriteFile(out, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	shellRun(t, zsh, append([]string{"-f", "-c", zshCapture, "zsh", out, script}, lines...)...)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(string(b), "@@NEXT@@\n")
	if len(parts) != len(lines)+1 {
		t.Fatalf("zsh recorded %d completions for %d lines:\n%s", len(parts)-1, len(lines), b)
	}
	var got [][]string
	for _, p := range parts[1:] {
		got = append(got, sortedLines(p))
	}
	return got
}

func sortedLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimRight(l, "\r"); l != "" && !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return out
}
