package config

import (
	"bytes"
	"flag"
	"reflect"
	"strings"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/kimi-run/kimi-run/internal/flaggen"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite the generated files")

// TestParseFlagsGenerated checks that parseflags_gen.go is Flags without what only help shows
// (go generate ./config, or this test with -update, rewrites it): the same fields, types and every
// other tag, so that a run parses into Flags through it (parseflags.go).
func TestParseFlagsGenerated(t *testing.T) {
	const file = "parseflags_gen.go"
	got, err := flaggen.ParseFlags("flags.go")
	if err != nil {
		t.Fatal(err)
	}
	testkit.Golden(t, file, got, *update, "go generate ./config")
	full, bare := reflect.TypeFor[Flags](), reflect.TypeFor[parseFlags]()
	if !full.ConvertibleTo(bare) || full.NumField() != bare.NumField() {
		t.Fatal("parseFlags is not Flags less its tags")
	}
	for i := range full.NumField() {
		f, b := full.Field(i), bare.Field(i)
		if f.Name != b.Name || f.Type != b.Type || flaggen.WithoutHelp(string(f.Tag)) != string(b.Tag) || strings.Contains(string(b.Tag), `help:"`) {
			t.Errorf("field %s: %s %q against %s %s %q", f.Name, f.Type, f.Tag, b.Name, b.Type, b.Tag)
		}
	}
	// kong calls these on the struct it fills: parseFlags must pass each on to Flags.
	for _, hook := range []string{"BeforeReset", "BeforeResolve", "BeforeApply", "AfterApply", "AfterRun", "Validate", "Help"} {
		_, onFull := reflect.TypeFor[*Flags]().MethodByName(hook)
		_, onBare := reflect.TypeFor[*parseFlags]().MethodByName(hook)
		if onFull != onBare {
			t.Errorf("kong's hook %s: on Flags %v, on parseFlags %v (parseflags.go passes them on)", hook, onFull, onBare)
		}
	}
}

// TestHelpUnchanged checks that --help, printed from a parser that read no help texts,
// is the help of the declaration itself, word for word.
func TestHelpUnchanged(t *testing.T) {
	var out, want bytes.Buffer
	var f Flags
	p, err := NewParser(&f, MapEnv{}, kong.Name("kimi-run"), kong.Description("a test"), kong.Writers(&out, &out), kong.Exit(func(int) {}))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = p.Parse([]string{"--help"})
	var g Flags
	full, err := newParser(&g, &source{env: MapEnv{}}, kong.Name("kimi-run"), kong.Description("a test"), kong.Writers(&want, &want), kong.Exit(func(int) {}))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = full.Parse([]string{"--help"})
	if out.String() != want.String() || !strings.Contains(out.String(), "The task. Use - to read it from stdin.") {
		t.Errorf("--help:\n%s\nwant:\n%s", out.String(), want.String())
	}
	m, err := HelpModel(kong.Name("kimi-run"))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := newParser(&Flags{}, &source{env: MapEnv{}}, kong.Name("kimi-run"))
	if err != nil {
		t.Fatal(err)
	}
	for i, fl := range m.Flags {
		if want := plain.Model.Flags[i]; fl.Name != want.Name || fl.Help != want.Help || fl.Help == "" && !fl.Hidden {
			t.Errorf("HelpModel: --%s %q, want --%s %q", fl.Name, fl.Help, want.Name, want.Help)
		}
	}
}
