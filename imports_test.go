package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const modulePath = "github.com/kimi-run/kimi-run"

// ownImports maps each package directory of the module to the module's packages its
// non-test files import (directories relative to the root, "." for main).
func ownImports(t *testing.T) map[string][]string {
	t.Helper()
	graph := map[string][]string{}
	fset := token.NewFileSet()
	productFiles(t, fset, parser.ImportsOnly, func(path string, f *ast.File) {
		dir := filepath.ToSlash(filepath.Dir(path))
		for _, spec := range f.Imports {
			imp, _ := strconv.Unquote(spec.Path.Value)
			if rest, ok := strings.CutPrefix(imp, modulePath+"/"); ok && !slices.Contains(graph[dir], rest) {
				graph[dir] = append(graph[dir], rest)
			}
		}
		if _, ok := graph[dir]; !ok {
			graph[dir] = nil
		}
	})
	return graph
}

// The package map of docs/design.md ("## Packages") as rules the compiler does not keep:
// which package may import which. A change that breaks one redraws the map on purpose.
func TestPackageMapHolds(t *testing.T) {
	graph := ownImports(t)
	for _, dir := range []string{".", "run", "config", "agent", "model", "session", "skills", "tools", "event", "output", "ralph"} {
		if _, ok := graph[dir]; !ok {
			t.Fatalf("package %s not found: the walk is broken", dir)
		}
	}
	under := func(pkg string, prefixes ...string) bool {
		for _, p := range prefixes {
			if pkg == p || strings.HasPrefix(pkg, p+"/") {
				return true
			}
		}
		return false
	}
	for dir, imports := range graph {
		for _, imp := range imports {
			var why string
			switch {
			case imp == "run" && dir != ".":
				why = "run is the composition root: only main.go imports it"
			case imp == "config" && dir != "run":
				why = "the settings are resolved once, by run, and handed down as values"
			case dir == "event":
				why = "event is the leaf every side shares: it imports nothing of ours"
			case under(dir, "output", "ralph", "telemetry") && under(imp, "agent", "model", "session", "skills", "config", "hooks"):
				why = "the renderers and the flow runner know events, never the model client"
			case under(dir, "tools") && under(imp, "agent", "model", "session", "skills", "config", "hooks", "output", "ralph", "telemetry", "sandbox"):
				why = "tools imports nothing of ours but its subpackages and internal helpers"
			case under(dir, "agent") && under(imp, "config", "output", "ralph", "skills", "hooks", "telemetry", "sandbox"):
				why = "the agent loop gets its collaborators as values, not packages"
			case under(dir, "config") && under(imp, "agent", "session", "skills", "output", "ralph", "telemetry", "sandbox"):
				why = "config names the model's values (prices, usage) and never the loop or the store"
			case dir == "model" && strings.HasPrefix(imp, "model/"):
				why = "model is the contract the protocol packages build on: it imports none of them"
			case strings.HasPrefix(imp, "model/") && !under(imp, "model/cassette", "model/protocols", "model/internal") &&
				dir != "model/protocols" && (dir != "config" || imp != "model/gemini"):
				why = "a wire protocol is reached through its row in model/protocols (config reads Gemini's default endpoint)"
			case under(dir, "model") && under(imp, "agent", "session", "skills", "config", "output", "ralph", "hooks", "telemetry", "sandbox"):
				why = "the provider client knows no loop, no store: a new protocol touches model/ only"
			case dir == "session" && under(imp, "agent", "skills", "config", "output", "ralph", "hooks", "telemetry", "sandbox", "tools"):
				why = "the session store keeps messages (model) and nothing else of ours"
			case dir == "skills" && under(imp, "agent", "model", "session", "config", "output", "hooks", "telemetry", "sandbox", "tools"):
				why = "skills are files and prompts: they know flows (ralph), not the loop or the model"
			case dir == "filechanges" && under(imp, "agent", "model", "session", "skills", "config", "output", "ralph", "hooks", "telemetry", "sandbox"):
				why = "files_changed watches the tools and runs git through the launcher: it knows no loop, no store, no settings"
			case dir == "sandbox" && imp != "internal/beneath":
				why = "sandbox is the kernel's rules alone (a leaf): what a run asks of it is planned in sandbox/runplan"
			case dir == "sandbox/runplan" && under(imp, "agent", "model", "session", "skills", "config", "output", "ralph", "hooks", "telemetry"):
				why = "the run's sandbox plan knows the tools, the launcher and the proxy: no loop, no store, no settings"
			case imp == "internal/launch/launcher" && !under(dir, "run", "sandbox/runplan", "internal/launch/early"):
				why = "the Linux launcher process is wired in by run: the rest start children through launch.Launcher"
			case under(dir, "completion", "manpage"):
				why = "the completion scripts and the man page are written from the kong model alone"
			case !under(dir, "internal", "scripts") && under(imp, "model/internal/modeltest", "internal/scripted", "internal/testkit", "internal/mcptest", "internal/otlptest", "internal/eventschema", "internal/escapetest"):
				why = "test helpers stay out of the binary"
			}
			if why != "" {
				t.Errorf("%s imports %s: %s (docs/design.md, ## Packages)", dir, imp, why)
			}
		}
	}
}
