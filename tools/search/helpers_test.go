package search

import (
	"context"
	"testing"
)

// grepProject is a small tree exercising ignore rules, hidden files, binaries and secrets.
var grepProject = map[string]string{
	".gitignore":                "*.log\n/build/\nnode_modules/\n!keep.log\n",
	"main.go":                   "package main\n\nfunc main() {\n\tprintln(\"needle\")\n}\n",
	"lib/util.go":               "package lib\n\n// Needle in a comment.\nfunc Helper() {}\n",
	"lib/.gitignore":            "generated.go\n!important.log\n",
	"lib/generated.go":          "package lib // needle generated\n",
	"lib/important.log":         "needle in an important log\n",
	"lib/deep/debug.log":        "needle in a debug log\n",
	"lib/deep/keep.log":         "needle kept by negation\n",
	"app.log":                   "needle in the root log\n",
	"build/out.txt":             "needle in build output\n",
	"docs/build/page.md":        "needle in docs/build, not anchored away\n",
	"node_modules/pkg/index.js": "needle in a dependency\n",
	".git/config":               "needle in git metadata\n",
	".hidden/notes.md":          "needle in a hidden directory\n",
	".env":                      "TOKEN=needle\n",
	".env.example":              "TOKEN=needle-placeholder\n",
	"certs/server.pem":          "needle in a key file\n",
	"web/app.ts":                "const needle = 1;\n",
	"web/view.tsx":              "export const Needle = () => null;\n",
	"scripts/run.py":            "NEEDLE = 'x'\n",
	".ignore":                   "scratch/\n",
	"scratch/tmp.txt":           "needle in scratch, excluded by .ignore\n",
}

// grep runs a query with the pure-Go engine below root, showing paths relative to it.
func grep(t *testing.T, q Query, root string) *Matches {
	t.Helper()
	if q.Limit == 0 {
		q.Limit = 1000
	}
	g, err := NewGrep(q)
	if err != nil {
		t.Fatal(err)
	}
	m, err := g.Run(context.Background(), Options{WorkDir: root}, root)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// paths lists the paths of the files in m, in order.
func paths(m *Matches) []string {
	var out []string
	for _, f := range m.Files {
		out = append(out, f.Path)
	}
	return out
}
