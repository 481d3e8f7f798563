package run_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kong"

	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/internal/eventschema"
	"github.com/kimi-run/kimi-run/run"
)

// TestFlagsReference: the flag tables of docs/reference.md are what the flags' declarations
// (config.Flags: help, default, envvar, config and sets tags) make of them, and so are its
// tables of environment variables (run.Variables: config.Variables, the flags' envvar
// tags, run's own) and of config keys (config.ConfigKeys), so the reference cannot drift
// from the binary. After a change to one of them, run
// go test ./run -run TestFlagsReference -update and review the diff.
func TestFlagsReference(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "docs", "reference.md")
	md, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := eventschema.Splice(string(md), map[string]string{
		"flags": flagsTables(t), "environment": environmentTable(t), "config-keys": configKeysTable(t)})
	if err != nil {
		t.Fatalf("docs/reference.md: %v", err)
	}
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got != string(md) {
		t.Errorf("docs/reference.md's generated tables are not what the declarations make; run go test ./run -run TestFlagsReference -update and review the diff")
	}
}

// flagsTables renders one table per help group of the flags --help-all shows.
func flagsTables(t *testing.T) string {
	t.Helper()
	var cli run.CLI
	p, err := config.NewParser(&cli, config.MapEnv{}, kong.Name("kimi-run"))
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	groups := map[string][]*kong.Flag{}
	for _, f := range p.Model.Flags {
		if f.Hidden || f.Name == "help" {
			continue
		}
		g := "Run"
		if f.Group != nil {
			g = f.Group.Title
		}
		if groups[g] == nil {
			order = append(order, g)
		}
		groups[g] = append(groups[g], f)
	}
	var b strings.Builder
	for _, g := range order {
		fmt.Fprintf(&b, "\n### %s\n\n| flag | default | also from | what it does |\n|---|---|---|---|\n", g)
		for _, f := range groups[g] {
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", refCell(refFlag(f)), refCode(f.Default), refCell(refSources(f)), refCell(f.Help))
		}
	}
	return b.String() + "\n"
}

// refFlag is a flag's name as the table shows it: "-p, --prompt TEXT", "--[no-]thinking".
func refFlag(f *kong.Flag) string {
	name := "--" + f.Name
	if f.Tag.Negatable != "" {
		name = "--[no-]" + f.Name
	}
	if f.Short != 0 {
		name = "-" + string(f.Short) + ", " + name
	}
	for _, a := range f.Aliases {
		name += ", --" + a
	}
	switch {
	case f.IsBool():
	case f.Enum != "":
		name += " " + strings.ReplaceAll(f.Enum, ",", "|")
	case f.PlaceHolder != "":
		name += " " + f.PlaceHolder
	case f.Target.Type() == reflect.TypeFor[time.Duration]():
		name += " DURATION"
	case f.Target.CanInt():
		name += " N"
	default:
		name += " " + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
	}
	return name
}

// refSources names what else sets a flag: its environment variables, config keys and the
// Kimi CLI flag it is another name for.
func refSources(f *kong.Flag) string {
	var from []string
	if env := f.Tag.Get("envvar"); env != "" {
		for _, e := range strings.Split(env, ",") {
			from = append(from, "`$"+e+"`")
		}
	}
	if keys := f.Tag.Get("config"); keys != "" {
		for _, k := range strings.Split(keys, ",") {
			from = append(from, "`"+k+"`")
		}
	}
	if sets := f.Tag.Get("sets"); sets != "" {
		from = append(from, "as `--"+sets+"`")
	}
	return strings.Join(from, ", ")
}

func refCode(s string) string {
	if s == "" {
		return ""
	}
	return "`" + refCell(s) + "`"
}

// refCell makes text safe inside a Markdown table cell.
func refCell(s string) string {
	return strings.ReplaceAll(s, "|", `\|`)
}

// environmentTable renders run.Variables, checking that each "as --flag" names a flag.
func environmentTable(t *testing.T) string {
	t.Helper()
	flags := flagNames(t)
	var b strings.Builder
	b.WriteString("\n| variable | meaning |\n|---|---|\n")
	for _, v := range run.Variables() {
		checkAsFlag(t, v.Meaning, flags)
		fmt.Fprintf(&b, "| `%s` | %s |\n", strings.Join(v.Names, "`, `"), refCell(v.Meaning))
	}
	return b.String() + "\n"
}

// configKeysTable renders config.ConfigKeys.
func configKeysTable(t *testing.T) string {
	t.Helper()
	flags := flagNames(t)
	var b strings.Builder
	b.WriteString("\n| key | in kimi-run |\n|---|---|\n")
	for _, k := range config.ConfigKeys() {
		checkAsFlag(t, k.Meaning, flags)
		fmt.Fprintf(&b, "| `%s` | %s |\n", k.Key, refCell(k.Meaning))
	}
	return b.String() + "\n"
}

// flagNames are the long names of the parser's flags.
func flagNames(t *testing.T) map[string]bool {
	t.Helper()
	var cli run.CLI
	p, err := config.NewParser(&cli, config.MapEnv{}, kong.Name("kimi-run"))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range p.Model.Flags {
		names[f.Name] = true
	}
	return names
}

// checkAsFlag fails the test when meaning says "as `--name`" of a flag that does not exist.
func checkAsFlag(t *testing.T, meaning string, flags map[string]bool) {
	t.Helper()
	if rest, ok := strings.CutPrefix(meaning, "as `--"); ok {
		if name, _, _ := strings.Cut(rest, "`"); !flags[name] {
			t.Errorf("%q names no flag --%s", meaning, name)
		}
	}
}
