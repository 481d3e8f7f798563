package config

import (
	"context"
	"errors"
	"fmt"
	"maps"
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
	enum  []string
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
		if fl.Enum != "" {
			d.enum = fl.EnumSlice()
		}
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

// sample is the n-th test value of a flag: as written on the command line or in the
// environment, as written in config.toml for key, and as the field then holds it. An enum
// flag's values come from its enum; a bool has only two, so its sources cannot all differ.
func sample(t *testing.T, d declaredFlag, key string, n int) (text, toml string, want any) {
	t.Helper()
	typ := d.typ
	if len(d.enum) > 0 {
		v := d.enum[n%len(d.enum)]
		return v, fmt.Sprintf("%q", v), v
	}
	switch {
	case typ == durationType:
		d := time.Duration(n) * time.Second
		if strings.HasSuffix(key, "_ms") {
			return d.String(), fmt.Sprint(n * 1000), d
		}
		return d.String(), fmt.Sprint(n), d
	case typ.Kind() == reflect.Bool:
		return fmt.Sprint(n%2 == 1), fmt.Sprint(n%2 == 1), n%2 == 1
	case typ.Kind() == reflect.Pointer && typ.Elem().Kind() == reflect.Bool:
		return fmt.Sprint(n%2 == 1), fmt.Sprint(n%2 == 1), ptrTo(n%2 == 1)
	case typ.Kind() == reflect.Int: // within every declared range (tools.Settings.Validate)
		return fmt.Sprint(n * 10_000), fmt.Sprint(n * 10_000), n * 10_000
	case typ.Kind() == reflect.Int64:
		return fmt.Sprint(n), fmt.Sprint(n), int64(n)
	case typ.Kind() == reflect.Pointer && typ.Elem().Kind() == reflect.Int:
		return fmt.Sprint(n), fmt.Sprint(n), &n
	case typ.Kind() == reflect.Float64:
		return fmt.Sprintf("%d.5", n), fmt.Sprintf("%d.5", n), float64(n) + 0.5
	case typ.Kind() == reflect.Pointer && typ.Elem().Kind() == reflect.Float64:
		return fmt.Sprintf("%d.5", n), fmt.Sprintf("%d.5", n), ptrTo(float64(n) + 0.5)
	case typ.Kind() == reflect.String:
		v := fmt.Sprintf("v%d", n)
		return v, fmt.Sprintf("%q", v), v
	case typ.Kind() == reflect.Pointer && typ.Elem().Kind() == reflect.String:
		v := fmt.Sprintf("v%d", n)
		return v, fmt.Sprintf("%q", v), &v
	case typ.Kind() == reflect.Slice && typ.Elem().Kind() == reflect.String:
		v := fmt.Sprintf("v%d", n)
		return v, fmt.Sprintf("[%q]", v), []string{v}
	}
	t.Fatalf("no sample for --%s's type %s: add one here", d.name, typ)
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
		for _, sf := range reflect.VisibleFields(pv.Type()) { // tools.Settings' fields too
			if !sf.Anonymous && pv.FieldByIndex(sf.Index).Addr().Pointer() == fl.Target.Addr().Pointer() {
				return reflect.ValueOf(f).Elem().FieldByIndex(sf.Index).Interface()
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
			flagText, _, flagWant := sample(t, d, key, 4)
			aliasText, _, aliasWant := sample(t, d, key, 3)
			envText, _, envWant := sample(t, d, key, 2)
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
				_, _, fileWant := sample(t, d, k, 1)
				cases = append(cases, source{name: "file " + k, file: k, want: fileWant, set: true, fromKey: i == 0})
			}
			if len(d.keys) > 1 {
				_, _, fileWant := sample(t, d, d.keys[0], 1)
				cases = append(cases, source{name: "first key wins", file: "all", want: fileWant, set: true, fromKey: true})
			}
			if len(d.envs) > 0 {
				cases = append(cases, source{name: "env beats file", env: true, file: "all", want: envWant, set: true})
			}
			if d.alias != "" {
				cases = append(cases, source{name: "Kimi alias beats env and file", args: []string{"--" + d.alias + "=" + aliasText}, env: true, file: "all", want: aliasWant, set: true})
			}
			cases = append(cases, source{name: "flag beats all", args: []string{"--" + d.name + "=" + flagText}, env: true, file: "all", want: flagWant, given: true, set: true})
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					tables := map[string][]string{}
					for _, k := range d.keys {
						if c.file == k || c.file == "all" {
							_, toml, _ := sample(t, d, k, 1)
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
		if (d.typ.Kind() == reflect.String || d.typ.Kind() == reflect.Slice) && d.enum == nil {
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
