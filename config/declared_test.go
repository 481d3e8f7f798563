package config

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kong"
)

// declaredFlag is one flag with declared sources, as the generic tests see it.
type declaredFlag struct {
	name  string
	envs  []string
	keys  []string
	alias string // a Kimi flag declared to set it
	typ   reflect.Type
}

// declaredFlags lists every flag of the model that names an environment variable, a
// config key or a Kimi alias, so that the tests below cover a new declaration without a
// row of their own.
func declaredFlags(t *testing.T) []declaredFlag {
	t.Helper()
	var f Flags
	p, err := NewParser(&f, MapEnv{}, kong.Name("kimi-run"))
	if err != nil {
		t.Fatal(err)
	}
	aliases := map[string]string{}
	for _, fl := range p.Model.Flags {
		if target := fl.Tag.Get("sets"); target != "" {
			aliases[target] = fl.Name
		}
	}
	var out []declaredFlag
	for _, fl := range p.Model.Flags {
		d := declaredFlag{name: fl.Name, alias: aliases[fl.Name], typ: fl.Target.Type()}
		if env := fl.Tag.Get("envvar"); env != "" {
			d.envs = strings.Split(env, ",")
		}
		if key := fl.Tag.Get("config"); key != "" {
			d.keys = strings.Split(key, ",")
		}
		if d.envs != nil || d.keys != nil || d.alias != "" {
			out = append(out, d)
		}
	}
	if len(out) < 5 {
		t.Fatalf("only %d declared flags: %v", len(out), out)
	}
	return out
}

// sample is the n-th test value of a flag's type: as written on the command line or in
// the environment, as written in config.toml for key, and as the field then holds it.
func sample(t *testing.T, typ reflect.Type, key string, n int) (text, toml string, want any) {
	t.Helper()
	switch {
	case typ == durationType:
		d := time.Duration(n) * time.Second
		if strings.HasSuffix(key, "_ms") {
			return d.String(), fmt.Sprint(n * 1000), d
		}
		return d.String(), fmt.Sprint(n), d
	case typ.Kind() == reflect.Int:
		return fmt.Sprint(n), fmt.Sprint(n), n
	case typ.Kind() == reflect.Pointer && typ.Elem().Kind() == reflect.Int:
		return fmt.Sprint(n), fmt.Sprint(n), &n
	case typ.Kind() == reflect.String:
		v := fmt.Sprintf("v%d", n)
		return v, fmt.Sprintf("%q", v), v
	case typ.Kind() == reflect.Slice && typ.Elem().Kind() == reflect.String:
		v := fmt.Sprintf("v%d", n)
		return v, fmt.Sprintf("[%q]", v), []string{v}
	case typ.Kind() == reflect.Float64:
		return fmt.Sprint(n), fmt.Sprintf("%d.5", n), float64(n) + 0.5
	}
	t.Fatalf("no sample for type %s: add one", typ)
	return "", "", nil
}

// fieldOf is the value the parsed flags f hold for the flag name: the field kong fills
// for it, found by its place in the struct.
func fieldOf(t *testing.T, f *Flags, name string) any {
	t.Helper()
	var probe Flags
	p, err := NewParser(&probe, MapEnv{}, kong.Name("kimi-run"))
	if err != nil {
		t.Fatal(err)
	}
	pv := reflect.ValueOf(&probe).Elem()
	for _, fl := range p.Model.Flags {
		if fl.Name != name {
			continue
		}
		for i := range pv.NumField() {
			if pv.Field(i).Addr().Pointer() == fl.Target.Addr().Pointer() {
				return reflect.ValueOf(f).Elem().Field(i).Interface()
			}
		}
	}
	t.Fatalf("no field for --%s", name)
	return nil
}

// TestDeclaredPrecedence checks, for every declared flag, that the command line beats its
// Kimi alias, which beats the environment, which beats the config file (each of its keys,
// the first present winning), which beats the default; and that Given tells the command
// line from the other sources.
func TestDeclaredPrecedence(t *testing.T) {
	for _, d := range declaredFlags(t) {
		t.Run(d.name, func(t *testing.T) {
			key := ""
			if len(d.keys) > 0 {
				key = d.keys[0]
			}
			flagText, _, flagWant := sample(t, d.typ, key, 4)
			aliasText, _, aliasWant := sample(t, d.typ, key, 3)
			envText, _, envWant := sample(t, d.typ, key, 2)
			type source struct {
				name                string
				args                []string
				env                 bool
				file                string // the key set in the file
				want                any
				given, set, fromKey bool
			}
			cases := []source{{name: "default"}}
			for i, k := range d.keys {
				_, _, fileWant := sample(t, d.typ, k, 1)
				cases = append(cases, source{name: "file " + k, file: k, want: fileWant, set: true, fromKey: i == 0})
			}
			if len(d.keys) > 1 {
				_, _, fileWant := sample(t, d.typ, d.keys[0], 1)
				cases = append(cases, source{name: "first key wins", file: "all", want: fileWant, set: true, fromKey: true})
			}
			if len(d.envs) > 0 {
				cases = append(cases, source{name: "env beats file", env: true, file: "all", want: envWant, set: true})
			}
			if d.alias != "" {
				cases = append(cases, source{name: "Kimi alias beats env and file", args: []string{"--" + d.alias, aliasText}, env: true, file: "all", want: aliasWant, set: true})
			}
			cases = append(cases, source{name: "flag beats all", args: []string{"--" + d.name, flagText}, env: true, file: "all", want: flagWant, given: true, set: true})
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					tables := map[string][]string{}
					for _, k := range d.keys {
						if c.file == k || c.file == "all" {
							_, toml, _ := sample(t, d.typ, k, 1)
							table, leaf := splitKey(k)
							tables[table] = append(tables[table], leaf+" = "+toml)
						}
					}
					var text strings.Builder
					for _, table := range slices.Sorted(maps.Keys(tables)) {
						if table != "" {
							fmt.Fprintf(&text, "[%s]\n", table)
						}
						text.WriteString(strings.Join(tables[table], "\n") + "\n")
					}
					env := MapEnv{"KIMI_SHARE_DIR": shareDir(t, text.String())}
					if c.env && len(d.envs) > 0 {
						env[d.envs[0]] = envText
					}
					f := parse(t, env, c.args...)
					if got := fieldOf(t, &f, d.name); c.want != nil && !reflect.DeepEqual(got, c.want) {
						t.Errorf("--%s = %#v, want %#v", d.name, got, c.want)
					}
					if f.Given(d.name) != c.given || f.Set(d.name) != c.set {
						t.Errorf("Given %v, Set %v; want %v, %v", f.Given(d.name), f.Set(d.name), c.given, c.set)
					}
					if c.fromKey && f.From(d.name) != "config key "+d.keys[0] {
						t.Errorf("From = %q", f.From(d.name))
					}
				})
			}
		})
	}
}

// TestDeclaredBadValues checks that a declared flag's value from the environment or the
// config file that does not parse is a usage error naming its source and the flag, not a
// default taken silently, and that the parse itself still succeeds (the run reports the
// error the way its flags ask).
func TestDeclaredBadValues(t *testing.T) {
	for _, d := range declaredFlags(t) {
		if d.typ.Kind() == reflect.String || d.typ.Kind() == reflect.Slice {
			continue // any text is a string
		}
		for _, src := range []string{"env", "file"} {
			if (src == "env" && d.envs == nil) || (src == "file" && d.keys == nil) {
				continue
			}
			t.Run(d.name+" "+src, func(t *testing.T) {
				env := MapEnv{"KIMI_API_KEY": "sk", "KIMI_MODEL_NAME": "m"}
				want := []string{}
				if src == "env" {
					env["KIMI_SHARE_DIR"] = t.TempDir()
					env[d.envs[0]] = "not-a-value"
					want = append(want, d.envs[0], "--"+d.name)
				} else {
					table, leaf := splitKey(d.keys[0])
					text := leaf + " = \"not-a-value\"\n"
					if table != "" {
						text = "[" + table + "]\n" + text
					}
					env["KIMI_SHARE_DIR"] = shareDir(t, text)
					// The typed view of the file may refuse the key first: it names the key too.
					want = append(want, leaf)
				}
				_, err := Resolve(context.Background(), parse(t, env), env)
				var ue *UsageError
				if !errors.As(err, &ue) {
					t.Fatalf("error %v, want a usage error", err)
				}
				for _, w := range want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not name %s", err, w)
					}
				}
			})
		}
	}
}

// splitKey splits a dotted key into its table and its last part.
func splitKey(key string) (table, leaf string) {
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		return key[:i], key[i+1:]
	}
	return "", key
}

// TestDeclaredHelp checks that --help names every declared variable and key.
func TestDeclaredHelp(t *testing.T) {
	var f Flags
	var out strings.Builder
	p, err := NewParser(&f, MapEnv{}, kong.Name("kimi-run"), kong.Writers(&out, &out), kong.Exit(func(int) {}))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = p.Parse([]string{"--help"})
	help := strings.Join(strings.Fields(out.String()), " ")
	for _, d := range declaredFlags(t) {
		for _, want := range append(d.envs, d.keys...) {
			if !strings.Contains(help, want) {
				t.Errorf("--help does not name %s (of --%s)", want, d.name)
			}
		}
	}
}

// TestResolverPrecedence checks the resolver on flags that have every source at once,
// which none of kimi-run's own has yet: the command line beats a Kimi alias, which beats
// the environment, which beats the config file, which beats the default.
func TestResolverPrecedence(t *testing.T) {
	type flags struct {
		Count int           `name:"count" default:"1" envvar:"T_COUNT" config:"t.count"`
		Kimi  *int          `name:"kimi-count" sets:"count"`
		Wait  time.Duration `name:"wait" default:"1s" envvar:"T_WAIT,T_WAIT_OLD" config:"t.wait_ms,t.wait"`
		Hosts []string      `name:"host" envvar:"T_HOSTS" config:"hosts"`
		Mode  string        `name:"mode" enum:"a,b" default:"a" envvar:"T_MODE" config:"t.mode"`
	}
	const file = "hosts = [\"file.example\"]\n[t]\ncount = 3\nwait_ms = 3000\nwait = 30\nmode = \"b\"\n"
	tests := []struct {
		name string
		args []string
		env  MapEnv
		file string
		want flags
		from map[string]string
	}{
		{name: "defaults", want: flags{Count: 1, Wait: time.Second, Mode: "a"}},
		{name: "file", file: file, want: flags{Count: 3, Wait: 3 * time.Second, Hosts: []string{"file.example"}, Mode: "b"},
			from: map[string]string{"count": "config key t.count", "wait": "config key t.wait_ms", "host": "config key hosts", "mode": "config key t.mode"}},
		{name: "older key, in seconds", file: "[t]\nwait = 30\n", want: flags{Count: 1, Wait: 30 * time.Second, Mode: "a"}},
		{name: "a duration key takes text", file: "[t]\nwait = \"2m\"\n", want: flags{Count: 1, Wait: 2 * time.Minute, Mode: "a"}},
		{name: "env beats file", file: file, env: MapEnv{"T_COUNT": "5", "T_WAIT_OLD": "5s", "T_HOSTS": "a.example,b.example", "T_MODE": "a"},
			want: flags{Count: 5, Wait: 5 * time.Second, Hosts: []string{"a.example", "b.example"}, Mode: "a"},
			from: map[string]string{"count": "T_COUNT", "wait": "T_WAIT_OLD", "host": "T_HOSTS", "mode": "T_MODE"}},
		{name: "first variable wins", env: MapEnv{"T_WAIT": "6s", "T_WAIT_OLD": "5s"}, want: flags{Count: 1, Wait: 6 * time.Second, Mode: "a"}},
		{name: "alias beats env", file: file, args: []string{"--kimi-count", "7"}, env: MapEnv{"T_COUNT": "5"},
			want: flags{Count: 7, Kimi: ptrTo(7), Wait: 3 * time.Second, Hosts: []string{"file.example"}, Mode: "b"}, from: map[string]string{"count": "--kimi-count"}},
		{name: "flag beats all", file: file, args: []string{"--count", "9", "--kimi-count", "7", "--wait", "9s", "--host", "x", "--mode", "a"},
			env:  MapEnv{"T_COUNT": "5", "T_WAIT": "5s", "T_HOSTS": "h", "T_MODE": "b"},
			want: flags{Count: 9, Kimi: ptrTo(7), Wait: 9 * time.Second, Hosts: []string{"x"}, Mode: "a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := MapEnv{"KIMI_SHARE_DIR": shareDir(t, tt.file)}
			for k, v := range tt.env {
				env[k] = v
			}
			var got flags
			src := &source{env: env}
			p, err := newParser(&got, src, kong.Name("t"), kong.Exit(func(int) { t.Fatal("exit") }))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			if len(src.problems) > 0 {
				t.Fatalf("problems: %v", src.problems)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
			for name, want := range tt.from {
				if src.origin[name] != want {
					t.Errorf("--%s from %q, want %q", name, src.origin[name], want)
				}
			}
		})
	}
	// Bad values are noted, named by their source, and leave the default.
	for _, bad := range []struct {
		env  MapEnv
		file string
		want string
	}{
		{env: MapEnv{"T_COUNT": "many"}, want: "T_COUNT (for --count)"},
		{env: MapEnv{"T_MODE": "c"}, want: `T_MODE (for --mode): must be one of a, b, got "c"`},
		{file: "[t]\ncount = \"many\"\n", want: "config key t.count (for --count)"},
		{file: "[t]\nwait_ms = true\n", want: "config key t.wait_ms (for --wait)"},
	} {
		env := MapEnv{"KIMI_SHARE_DIR": shareDir(t, bad.file)}
		for k, v := range bad.env {
			env[k] = v
		}
		var got flags
		src := &source{env: env}
		p, err := newParser(&got, src, kong.Name("t"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Parse(nil); err != nil {
			t.Fatal(err)
		}
		if len(src.problems) != 1 || !strings.Contains(src.problems[0].Error(), bad.want) {
			t.Errorf("problems %v, want one naming %q", src.problems, bad.want)
		}
		if got.Count != 1 || got.Mode != "a" || got.Wait != time.Second {
			t.Errorf("a bad value changed the flags: %+v", got)
		}
	}
}

func ptrTo[T any](v T) *T { return &v }

// BenchmarkParse is what a run pays for its command line before Resolve: building the
// parser, parsing `-p hi` and reading a typical config.toml. "kong" is kong alone with the
// file read as before the declarations (the baseline); "declared" is NewParser, whose
// resolver fills the declared flags (and reads the file once, for Resolve too).
func BenchmarkParse(b *testing.B) {
	env := MapEnv{"KIMI_SHARE_DIR": b.TempDir(), "KIMI_API_KEY": "sk"}
	if err := os.WriteFile(filepath.Join(env["KIMI_SHARE_DIR"], "config.toml"), []byte(fileText), 0o600); err != nil {
		b.Fatal(err)
	}
	args := []string{"-p", "hi"}
	b.Run("kong", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var f Flags
			p, err := kong.New(&f, kong.Name("kimi-run"), kong.Vars{"default_max_steps": "1000"}, kong.WithHyphenPrefixedParameters(true))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := p.Parse(args); err != nil {
				b.Fatal(err)
			}
			if _, err := load(&f, env); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("declared", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var f Flags
			p, err := NewParser(&f, env, kong.Name("kimi-run"))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := p.Parse(args); err != nil {
				b.Fatal(err)
			}
			if _, err := f.configFile(env); err != nil {
				b.Fatal(err)
			}
		}
	})
}
