package run_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
	"github.com/kimi-run/kimi-run/run"
)

// TestSmallUsageErrors: values that parse but cannot be meant are exit 2 before any model
// call, instead of being silently read another way (issue 21 #8).
func TestSmallUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"-p twice", []string{"-p", "x", "-p", "y"}, "-p/--prompt is given 2 times"},
		{"-c twice", []string{"-c", "x", "-c", "y"}, "-c/--command is given 2 times"},
		{"empty session", []string{"-p", "x", "-S", ""}, "-S/--session is empty"},
		{"empty resume", []string{"-p", "x", "-r", ""}, "-r/--resume is empty"},
		{"empty base URL", []string{"-p", "x", "--base-url", ""}, "--base-url is empty"},
		{"negative stdin timeout", []string{"-p", "x", "--stdin-timeout", "-1s"}, "--stdin-timeout must not be negative"},
		{"negative session wait", []string{"-p", "x", "--session-wait", "-5s"}, "--session-wait must not be negative"},
		{"window below the system prompt", []string{"-p", "x", "--max-context-size", "100"}, "the system prompt alone is about"},
	}
	for _, tt := range tests {
		for _, format := range []string{"text", "stream-json"} {
			t.Run(tt.name+"/"+format, func(t *testing.T) {
				t.Parallel()
				srv := scripted.New(t, scripted.Text("ok"))
				sessions := t.TempDir()
				args := append([]string{"--output-format", format, "--session-dir", sessions}, tt.args...)
				r := kimi(t, srv, invocation{args: args})
				if r.code != 2 || !strings.Contains(r.stderr, tt.stderr) {
					t.Fatalf("exit %d, stderr %q; want 2 and %q", r.code, r.stderr, tt.stderr)
				}
				if n := len(srv.Requests()); n != 0 {
					t.Errorf("%d model calls", n)
				}
				if format == "stream-json" {
					if e := lastResult(t, r)["error"].(map[string]any); e["kind"] != "usage" {
						t.Errorf("error kind %v", e["kind"])
					}
				}
				if entries, _ := os.ReadDir(sessions); len(entries) != 0 {
					t.Errorf("left in the session dir: %v", entries)
				}
			})
		}
	}
}

// TestEmptyPipedStdinWarns: `cmd | kimi-run -p "review this"` where cmd printed nothing
// runs, with one warning line saying the context is missing (issue 21 #8).
func TestEmptyPipedStdinWarns(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Text("Nothing to review."))
	r := kimi(t, srv, invocation{args: []string{"-p", "review this"}, stdin: ptr("")})
	if r.code != 0 || r.stdout != "Nothing to review.\n" {
		t.Fatalf("exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	if n := strings.Count(r.stderr, "stdin was empty"); n != 1 {
		t.Errorf("%d warnings about the empty stdin, want 1:\n%s", n, r.stderr)
	}
	// Something piped: no warning.
	r = kimi(t, scripted.New(t, scripted.Text("ok")), invocation{args: []string{"-p", "review this"}, stdin: ptr("a diff\n")})
	if r.code != 0 || strings.Contains(r.stderr, "stdin was empty") {
		t.Errorf("exit %d\n%s", r.code, r.stderr)
	}
}

// TestHelpAndFlagsTable: --help-all names --output-schema, and docs/reference.md's flag
// tables have one row per flag (the hand-written table listed --add-dir twice) (issue 21
// #8); every flag --help-all shows has its row there or in the table of Kimi CLI's names.
func TestHelpAndFlagsTable(t *testing.T) {
	t.Parallel()
	r := kimi(t, nil, invocation{args: []string{"--help-all"}})
	if r.code != 0 || !strings.Contains(r.stdout, "--output-schema") {
		t.Errorf("--help-all: exit %d, no --output-schema:\n%s", r.code, r.stdout)
	}
	reference := filepath.Join("..", "docs", "reference.md")
	table := testkit.DocSection(t, reference, "## Flags")
	seen := map[string]bool{}
	for _, line := range strings.Split(table, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		flag := strings.SplitN(line, "`", 3)[1]
		if seen[flag] {
			t.Errorf("docs/reference.md's flag tables list %s twice", flag)
		}
		seen[flag] = true
	}
	if len(seen) < 20 {
		t.Fatalf("found only %d rows in docs/reference.md's flag tables", len(seen))
	}
	kimiTable := testkit.DocSection(t, filepath.Join("..", "docs", "kimi-cli.md"), "## Command line")
	kimiTable, _, _ = strings.Cut(kimiTable, "\n\nAs in Kimi CLI")
	named := map[string]bool{}
	for _, line := range strings.Split(table+"\n"+kimiTable, "\n") {
		if cells := strings.Split(line, "|"); strings.HasPrefix(line, "| `") && len(cells) > 2 {
			for _, m := range flagName.FindAllStringSubmatch(cells[1]+cells[2], -1) {
				named[m[1]] = true
			}
		}
	}
	var cli run.CLI
	p, err := config.NewParser(&cli, config.MapEnv{}, kong.Name("kimi-run"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range p.Model.Flags {
		if !f.Hidden && f.Name != "help" && !named[f.Name] {
			t.Errorf("--%s has no row in docs/reference.md's flag tables (or docs/kimi-cli.md's table of Kimi CLI's names)", f.Name)
		}
	}
}

// flagName finds the long flags a table cell names, --[no-]thinking as thinking.
var flagName = regexp.MustCompile(`--(?:\[no-\])?([a-z0-9][a-z0-9-]*)`)
