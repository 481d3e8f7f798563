package run_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/run"
)

// TestEveryVariableReadIsDeclared: the code of the binary reads no environment variable
// that run.Variables leaves out (so --help-all and docs/reference.md list them all), and
// the table declares none the code has stopped reading. A variable is read where the
// sources of the binary's packages (go list -deps, tests aside) name it: a string literal
// shaped like one of kimi-run's or a provider's variables anywhere, or any literal handed
// to a getter (Getenv, LookupEnv, getenv, penv, lookup).
func TestEveryVariableReadIsDeclared(t *testing.T) {
	t.Parallel()
	declared, fromFlags := map[string]bool{}, map[string]bool{}
	for _, v := range config.FlagVariables() {
		for _, n := range v.Names {
			fromFlags[n] = true
		}
	}
	for _, v := range run.Variables() {
		for _, n := range v.Names {
			declared[n] = true
		}
	}
	// Names the code holds that are not variables a user sets for kimi-run.
	notRead := map[string]string{
		"HOME": "the system's", "PATH": "the system's", "LOCALAPPDATA": "the system's", "USERPROFILE": "the system's",
		"KUBERNETES_SERVICE_HOST": "a container's mark", "container": "a container's mark",
		"KIMI_RUN_SANDBOX": "set for the commands kimi-run starts, never read",
	}
	// Files whose names are not variables at all.
	notVariables := map[string]string{
		filepath.Join("agent", "prompt.go"): "the system prompt's template variables (${KIMI_WORK_DIR}, ...)",
	}
	read := variablesRead(t, notVariables)
	for n, where := range read {
		otel := strings.HasPrefix(n, "OTEL_") && declared["OTEL_*"]
		if !declared[n] && !otel && notRead[n] == "" {
			t.Errorf("%s reads %s, which run.Variables does not declare (add it to the table of the package that reads it)", where, n)
		}
	}
	for n := range declared {
		if _, ok := read[n]; !ok && !fromFlags[n] && n != "OTEL_*" {
			t.Errorf("run.Variables declares %s, which no code of the binary reads", n)
		}
	}
}

// variablesRead are the variable names the non-test sources of the binary's packages read,
// each with a file that reads it: a string literal shaped like one of kimi-run's or a
// provider's variables anywhere, or any name handed to a getter. skip are files to leave out.
func variablesRead(t *testing.T, skip map[string]string) map[string]string {
	t.Helper()
	shaped := regexp.MustCompile(`^((KIMI|OPENAI|ANTHROPIC|GEMINI|GOOGLE|OTEL)_[A-Z0-9_]+|TRACEPARENT)$`)
	name := regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	getters := map[string]bool{"Getenv": true, "LookupEnv": true, "getenv": true, "penv": true, "lookup": true}

	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	// One file a line: the Go files of the main module's packages the binary is built of.
	const format = `{{if and .Module .Module.Main}}{{range .GoFiles}}{{$.Dir}}/{{.}}
{{end}}{{range .IgnoredGoFiles}}{{$.Dir}}/{{.}}
{{end}}{{end}}`
	out, err := exec.Command("go", "list", "-deps", "-f", format, "..").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	read := map[string]string{} // name -> where
	files := 0
	for _, path := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		rel, _ := filepath.Rel(root, filepath.Clean(path))
		if skip[rel] != "" {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files++
		note := func(lit ast.Expr) {
			if b, ok := lit.(*ast.BasicLit); ok && b.Kind == token.STRING {
				if s, err := strconv.Unquote(b.Value); err == nil && name.MatchString(s) {
					read[s] = rel
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				if s, err := strconv.Unquote(n.Value); n.Kind == token.STRING && err == nil && shaped.MatchString(s) {
					read[s] = rel
				}
			case *ast.CallExpr:
				callee := ""
				switch fn := n.Fun.(type) {
				case *ast.Ident:
					callee = fn.Name
				case *ast.SelectorExpr:
					callee = fn.Sel.Name
				}
				if getters[callee] {
					for _, a := range n.Args {
						note(a)
					}
				}
			}
			return true
		})
	}
	if files < 50 {
		t.Fatalf("read only %d files of the binary's packages", files)
	}
	return read
}
