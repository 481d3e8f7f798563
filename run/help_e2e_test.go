package run_test

import (
	"strings"
	"testing"
)

// TestHelpFitsAScreen: --help is one screen at 80 columns, with the flags a CI job needs
// and the way to the rest; --help-all has everything --help leaves out (issue 38).
func TestHelpFitsAScreen(t *testing.T) {
	t.Parallel()
	r := kimi(t, nil, invocation{args: []string{"--help"}})
	if r.code != 0 {
		t.Fatalf("--help: exit %d\n%s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	if len(lines) > 60 {
		t.Errorf("--help has %d lines, want at most 60", len(lines))
	}
	for _, l := range lines {
		if len([]rune(l)) > 80 {
			t.Errorf("wider than 80 columns: %q", l)
		}
	}
	for _, want := range []string{"--prompt", "--output-format", "--timeout", "--sandbox", "--disallowed-tools", "--session", "--help-all"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("--help lacks %s:\n%s", want, r.stdout)
		}
	}
	all := kimi(t, nil, invocation{args: []string{"--help-all"}})
	if all.code != 0 {
		t.Fatalf("--help-all: exit %d\n%s", all.code, all.stderr)
	}
	for _, want := range []string{"Kimi CLI compatibility", "--print ", "Environment", "KIMI_API_KEY", "75 transient", "--keep-background"} {
		if strings.Contains(r.stdout, want) {
			t.Errorf("--help has %q, which is --help-all's", want)
		}
		if !strings.Contains(all.stdout, want) {
			t.Errorf("--help-all lacks %q", want)
		}
	}
}

// TestVersionAmongOtherFlags: -V with other flags (the parser's flag, not the lone
// --version the run answers first) prints the version and exits 0, running nothing.
func TestVersionAmongOtherFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"-q", "-V"}, {"--version", "-p", "hi"}} {
		r := kimi(t, nil, invocation{args: args})
		if r.code != 0 || !strings.HasPrefix(r.stdout, "kimi-run ") || strings.Count(r.stdout, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
		}
	}
}
