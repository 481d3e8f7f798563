package run_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// exitCodes reads the ExitCode constants of exit.go, so that a code added there is
// checked below without anyone listing it again.
func exitCodes(t *testing.T) map[string]int {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "exit.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	codes := map[string]int{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "ExitCode" || len(v.Values) != 1 {
				continue
			}
			lit, ok := v.Values[0].(*ast.BasicLit)
			if !ok {
				t.Fatalf("%s is not a literal", v.Names[0].Name)
			}
			n, _ := strconv.Atoi(lit.Value)
			codes[v.Names[0].Name] = n
		}
	}
	if len(codes) < 10 {
		t.Fatalf("found only %v in exit.go", codes)
	}
	return codes
}

// TestEveryExitCodeIsDocumented: each exit code is in every table and list a user reads
// (issue 29 #5 found 8 missing from the action's summary and --help), and each row of
// docs/exit-codes.md's table, read row by row, names only codes exit.go declares, each once.
func TestEveryExitCodeIsDocumented(t *testing.T) {
	t.Parallel()
	help := kimi(t, nil, invocation{args: []string{"--help-all"}})
	exits := help.stdout[strings.Index(help.stdout, "Exit codes:"):]
	exits = exits[:strings.Index(exits, "\n\n")]
	action := string(repoFile(t, "action.yml"))
	action = action[strings.Index(action, "kimi-run's exit code"):]
	action = action[:strings.Index(action, "\n")]
	docs := map[string]string{
		"docs/exit-codes.md": string(repoFile(t, "docs/exit-codes.md")),
		"docs/ci.md":         string(repoFile(t, "docs/ci.md")),
		"docs/events.md":     string(repoFile(t, "docs/events.md")),
	}
	for name, code := range exitCodes(t) {
		n := strconv.Itoa(code)
		// A table row of its own, or shared as "130 / 143".
		row := regexp.MustCompile(`(?m)^\| (\d+ / )?` + n + `( / \d+)? \|`)
		for file, text := range docs {
			if !row.MatchString(text) {
				t.Errorf("%s (%d) has no row in %s's exit-code table", name, code, file)
			}
		}
		word := regexp.MustCompile(`(^|[\s,/(])` + n + `([\s,/]|$)`)
		if !word.MatchString(exits) {
			t.Errorf("%s (%d) is not in --help's exit codes:\n%s", name, code, exits)
		}
		if !word.MatchString(action) {
			t.Errorf("%s (%d) is not in action.yml's exit-code output: %s", name, code, action)
		}
	}
	declared := map[int]bool{}
	for _, code := range exitCodes(t) {
		declared[code] = true
	}
	rows := regexp.MustCompile(`(?m)^\| ([0-9][0-9 /]*) \|`).FindAllStringSubmatch(docs["docs/exit-codes.md"], -1)
	seen := map[int]bool{}
	for _, row := range rows {
		for _, field := range strings.Split(row[1], "/") {
			n, err := strconv.Atoi(strings.TrimSpace(field))
			switch {
			case err != nil || !declared[n]:
				t.Errorf("docs/exit-codes.md has a row for %q, which exit.go does not declare", field)
			case seen[n]:
				t.Errorf("docs/exit-codes.md has two rows for %d", n)
			}
			seen[n] = true
		}
	}
}

// TestActionSummaryNamesEveryExitCode runs the action's script with a stand-in kimi-run
// that exits with each code: the step summary must say what the code means.
func TestActionSummaryNamesEveryExitCode(t *testing.T) {
	t.Parallel()
	needBash(t)
	for name, code := range exitCodes(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			src, fake := filepath.Join(dir, "src"), filepath.Join(dir, "kimi-run")
			if err := os.WriteFile(src, []byte("#!/bin/sh\nexit "+strconv.Itoa(code)+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			// Copied by cp: a parallel test's fork could hold a file written here open.
			if out, err := exec.Command("cp", src, fake).CombinedOutput(); err != nil {
				t.Fatalf("cp: %v\n%s", err, out)
			}
			r := runActionScript(t, t.TempDir(), map[string]string{"INPUT_PROMPT": "x", "KIMI_RUN_BIN": fake})
			if r.code != code || r.outputs["exit-code"] != strconv.Itoa(code) {
				t.Fatalf("exit %d, outputs %v; want %d", r.code, r.outputs, code)
			}
			if strings.Contains(r.summary, "unexpected exit") || !strings.Contains(r.summary, "### kimi-run") {
				t.Errorf("summary for exit %d:\n%s", code, r.summary)
			}
		})
	}
}
