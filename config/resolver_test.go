package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kong"
)

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
