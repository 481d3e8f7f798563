package config

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/kong"
)

// A setting is declared once, on its field of Flags, with kong's tags (name, help,
// default, group) and these, which kong itself ignores:
//
//	envvar:"NAME,NAME2"           environment variables; the first one set (non-empty) wins
//	config:"table.key,older.key"  keys of config.toml (or --config); the first present wins
//	sets:"flag"                   on one of Kimi CLI's flags: it is another name for --flag
//
// The parser NewParser builds fills every declared flag the command line leaves out, so
// that the field holds the setting whatever its source, with the precedence
// command line > environment > config file > default. A Kimi name counts as the command
// line; given with the flag it names, Resolve refuses the pair. Resolve reports a value
// from the environment or the file that does not parse, naming where it came from.
//
// A config key holds the value as TOML (or JSON) types it: a number or a string for a
// number, true/false, a list for a repeatable flag. A duration key takes a string such as
// "30s", or a number of seconds (of milliseconds when the key ends in _ms), as Kimi CLI's
// keys count.

// NewParser builds kimi-run's command-line parser over f, with the declared sources read
// from env (and the config file the command line and env name). options are kong's (name,
// writers, exit); kong.Parse then fills f. Its model has every help text: --help, the man
// page and the completion scripts read it.
func NewParser(f *Flags, env Env, options ...kong.Option) (*kong.Kong, error) {
	f.src = &source{env: env}
	return newParser(f, f.src, options...)
}

// newParser builds a parser over the struct target with src resolving its declared flags.
// The caller's options come last, so that its own help printer wins.
func newParser(target any, src *source, options ...kong.Option) (*kong.Kong, error) {
	var putBack func()
	options = append([]kong.Option{
		// --ralph -1 means "no limit"; without this kong reads -1 as a short flag.
		kong.WithHyphenPrefixedParameters(true),
		kong.Resolvers(src),
		kong.Help(FullHelp),
		kong.Bind(Describe(nil)),
		kong.PostBuild(func(k *kong.Kong) error {
			putBack = setPlainHelpAside(k.Model.Node)
			return nil
		}),
	}, options...)
	k, err := kong.New(target, options...)
	if putBack != nil {
		putBack()
	}
	return k, err
}

// setPlainHelpAside empties the help texts below n that hold no '$' and returns what puts
// them back. kong runs every help text through its variable interpolation, a regexp pass
// over each rune that cost more than the rest of the parser (about 0.4 ms a start), and it
// returns a text without '$' as it was: set aside while kong interpolates, such a text
// comes back the same. A text with '$' (${default}) is interpolated as before.
func setPlainHelpAside(n *kong.Node) (putBack func()) {
	var helps []*string
	var texts []string
	_ = kong.Visit(n, func(v kong.Visitable, next kong.Next) error {
		h := (*string)(nil)
		switch v := v.(type) {
		case *kong.Node:
			h = &v.Help
		case *kong.Value:
			h = &v.Help
		}
		if h != nil && *h != "" && !strings.Contains(*h, "$") {
			helps, texts = append(helps, h), append(texts, *h)
			*h = ""
		}
		return next(nil)
	})
	return func() {
		for i, h := range helps {
			*h = texts[i]
		}
	}
}

// FullHelp is the help printer of every flag with the sources of its value: --help-all,
// and --help where the caller sets no printer of its own.
func FullHelp(o kong.HelpOptions, kctx *kong.Context) error {
	DescribeSources(kctx.Model)
	return kong.DefaultHelpPrinter(o, kctx)
}

// Describe makes the text --help-all prints above the flags (the environment, the exit
// codes), when it prints it: a caller binds its own (kong.Bind) in place of kong.Description,
// so that a run printing no help does not build it.
type Describe func() string

// HelpAllFlag is --help-all: it prints FullHelp and exits, whatever help printer the
// parser has for --help.
type HelpAllFlag bool

// BeforeReset implements kong's hook: it runs before the flags are applied, as --help's.
func (HelpAllFlag) BeforeReset(kctx *kong.Context, describe Describe) error {
	if describe != nil {
		kctx.Model.Help = describe()
	}
	if err := FullHelp(kong.HelpOptions{ValueFormatter: kong.DefaultHelpValueFormatter}, kctx); err != nil {
		return err
	}
	kctx.Kong.Exit(0)
	return nil
}

// IgnoreDefault tells kong the flag has no default to apply.
func (HelpAllFlag) IgnoreDefault() {}

// PrintVersionFlag is -V, --version among other flags (alone, the run answers before it
// builds the parser). The text it prints is bound to the parser (kong.Bind(Version(...)))
// rather than a kong variable, which kong would interpolate into every flag at each start.
type PrintVersionFlag bool

// Version is the text PrintVersionFlag prints.
type Version string

// BeforeReset implements kong's hook: it prints the version and exits 0.
func (PrintVersionFlag) BeforeReset(app *kong.Kong, v Version) error {
	fmt.Fprintln(app.Stdout, string(v))
	app.Exit(0)
	return nil
}

// source is the kong resolver of the declared settings. It lives as long as one parse and
// the Resolve that follows it, which reads the config file it loaded and where each value
// came from.
type source struct {
	env Env
	// aliases maps a flag's name to the Kimi flags that set it; given holds the flags the
	// command line gave. Both are built on the first Resolve call.
	aliases map[string][]*kong.Flag
	given   map[*kong.Flag]bool
	// synonyms are the pairs of declared names (flag, Kimi flag), for the conflict check.
	synonyms [][2]string
	// origin is where each flag the command line left out got its value: a Kimi flag
	// (--name), a variable (NAME) or a config key ("config key table.key").
	origin map[string]string
	// problems are values from the environment or the file that do not parse.
	problems []error
	// cfg is the config file, loaded on first need (loaded says it was tried).
	cfg    *fileConfig
	cfgErr error
	loaded bool
}

// Validate implements kong.Resolver.
func (*source) Validate(*kong.Application) error { return nil }

// Resolve implements kong.Resolver: kong calls it for every flag the command line did
// not give. It never fails the parse: a bad value is kept for Resolve to report, so that
// the run still reports the way its flags ask.
func (s *source) Resolve(kctx *kong.Context, _ *kong.Path, flag *kong.Flag) (any, error) {
	if s.given == nil {
		s.index(kctx)
	}
	for _, alias := range s.aliases[flag.Name] {
		if s.given[alias] {
			s.origin[flag.Name] = "--" + alias.Name
			return derefAny(kctx.FlagValue(alias)), nil
		}
	}
	if names := flag.Tag.Get("envvar"); names != "" {
		for _, name := range strings.Split(names, ",") {
			if v := s.env.Getenv(name); v != "" {
				return s.accept(flag, v, name), nil
			}
		}
	}
	if keys := flag.Tag.Get("config"); keys != "" {
		tree := s.tree(kctx)
		for _, key := range strings.Split(keys, ",") {
			if v, ok := lookupKey(tree, key); ok {
				return s.accept(flag, durationUnit(flag, key, v), "config key "+key), nil
			}
		}
	}
	return nil, nil
}

// index notes the flags the command line gave and the Kimi names of the others.
func (s *source) index(kctx *kong.Context) {
	s.given, s.aliases, s.origin = map[*kong.Flag]bool{}, map[string][]*kong.Flag{}, map[string]string{}
	for _, p := range kctx.Path {
		if p.Flag != nil && !p.Resolved {
			s.given[p.Flag] = true
		}
	}
	for _, f := range kctx.Model.Flags {
		if target := f.Tag.Get("sets"); target != "" {
			s.aliases[target] = append(s.aliases[target], f)
			s.synonyms = append(s.synonyms, [2]string{target, f.Name})
		}
	}
}

// accept returns v for kong to decode into flag, or nil (the default stays) when it would
// not decode, noting the problem with where the value came from.
func (s *source) accept(flag *kong.Flag, v any, from string) any {
	scratch := reflect.New(flag.Target.Type()).Elem()
	if scratch.Kind() == reflect.Pointer {
		scratch.Set(reflect.New(scratch.Type().Elem()))
	}
	err := flag.Mapper.Decode(&kong.DecodeContext{Value: flag.Value, Scan: kong.Scan().PushTyped(v, kong.FlagValueToken)}, scratch)
	if err == nil && flag.Enum != "" && !flag.EnumMap()[fmt.Sprint(v)] {
		err = fmt.Errorf("must be one of %s, got %q", strings.ReplaceAll(flag.Enum, ",", ", "), fmt.Sprint(v))
	}
	if err != nil {
		s.problems = append(s.problems, Usagef("%s (for --%s): %v", from, flag.Name, err))
		return nil
	}
	s.origin[flag.Name] = from
	return v
}

// tree is the config file as a tree of tables, loading the file on first need. The file is
// the one Resolve reads: --config, --config-file or the share dir's config.toml.
func (s *source) tree(kctx *kong.Context) map[string]any {
	if !s.loaded {
		var f Flags
		for _, fl := range kctx.Model.Flags {
			switch fl.Name {
			case "config":
				f.Config, _ = kctx.FlagValue(fl).(string)
			case "config-file":
				f.ConfigFile, _ = kctx.FlagValue(fl).(string)
			case "bare":
				f.Bare, _ = kctx.FlagValue(fl).(bool)
			}
		}
		s.cfg, s.cfgErr = load(&f, s.env)
		s.loaded = true
	}
	if s.cfg == nil {
		return nil
	}
	return s.cfg.tree()
}

// lookupKey finds a dotted key in the tree of tables.
func lookupKey(tree map[string]any, key string) (any, bool) {
	var v any = tree
	for _, part := range strings.Split(key, ".") {
		table, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = table[part]; !ok {
			return nil, false
		}
	}
	if n, ok := v.(json.Number); ok { // JSON's numbers, as TOML's
		if i, err := n.Int64(); err == nil {
			return i, true
		}
		f, _ := n.Float64()
		return f, true
	}
	return v, true
}

// durationUnit turns a config number for a duration flag into a duration text: seconds,
// or milliseconds when the key ends in _ms.
func durationUnit(flag *kong.Flag, key string, v any) any {
	if flag.Target.Type() != durationType {
		return v
	}
	unit := "s"
	if strings.HasSuffix(key, "_ms") {
		unit = "ms"
	}
	switch n := v.(type) {
	case int64:
		return strconv.FormatInt(n, 10) + unit
	case float64:
		return strconv.FormatFloat(n, 'f', -1, 64) + unit
	}
	return v
}

var durationType = reflect.TypeOf(time.Duration(0))

// derefAny is the value a pointer points to (a Kimi flag held as *int sets an int flag).
func derefAny(v any) any {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && !rv.IsNil() {
		return rv.Elem().Interface()
	}
	return v
}

// DescribeSources adds to the help of each declared flag where else its value may come
// from, for --help and the man page. It is done when help is printed, not on every run.
func DescribeSources(app *kong.Application) {
	for _, f := range app.Flags {
		var from []string
		if env := f.Tag.Get("envvar"); env != "" {
			from = append(from, "$"+strings.ReplaceAll(env, ",", ", $"))
		}
		if key := f.Tag.Get("config"); key != "" {
			from = append(from, "config.toml "+strings.ReplaceAll(key, ",", ", "))
		}
		note := " (" + strings.Join(from, "; ") + ")"
		if len(from) == 0 || strings.HasSuffix(f.Help, note) {
			continue
		}
		f.Help = strings.TrimSpace(f.Help) + note
	}
}

// configFile is the config file Resolve reads: the one the parser loaded, else loaded now.
func (f *Flags) configFile(env Env) (*fileConfig, error) {
	if f.src == nil {
		return load(f, env)
	}
	if !f.src.loaded {
		f.src.cfg, f.src.cfgErr = load(f, env)
		f.src.loaded = true
	}
	return f.src.cfg, f.src.cfgErr
}

// fromFile reports whether the flag's value came from the config file.
func (f *Flags) fromFile(name string) bool {
	return strings.HasPrefix(f.From(name), "config key ")
}
