package config

import (
	"slices"

	"github.com/alecthomas/kong"
)

// A run parses its command line into Flags through parseFlags (parseflags_gen.go), the same
// struct without the help texts, placeholders and help groups, which kong would otherwise
// read rune by rune and interpolate at every start, though a run never shows them: the help
// was about half of building the parser, placeholders and groups a fifth of what was left
// (issue 31). What shows them (--help, the man page, completion scripts) builds
// the parser over Flags itself. go generate writes parseflags_gen.go from flags.go
// (internal/flaggen) and TestParseFlagsGenerated fails when it is stale, so a flag is still
// declared once, in flags.go.
//
//go:generate go run genparseflags.go

// AfterApply passes kong's hook on to Flags.
func (p *parseFlags) AfterApply(kctx *kong.Context) error { return (*Flags)(p).AfterApply(kctx) }

// NewParser builds kimi-run's command-line parser over f, with the declared sources read
// from env (and the config file the command line and env name). options are kong's (name,
// writers, exit); kong.Parse then fills f. Its model has no help texts: --help prints those
// of HelpModel's, and the man page and completion scripts take that one.
func NewParser(f *Flags, env Env, options ...kong.Option) (*kong.Kong, error) {
	f.src = &source{env: env}
	help := kong.Help(func(o kong.HelpOptions, _ *kong.Context) error {
		k, err := newParser(&Flags{}, &source{env: env}, options...)
		if err != nil {
			return err
		}
		kctx, err := kong.Trace(k, nil)
		if err != nil {
			return err
		}
		DescribeSources(k.Model)
		return kong.DefaultHelpPrinter(o, kctx)
	})
	return newParser((*parseFlags)(f), f.src, append(slices.Clone(options), help)...)
}

// NewHelpParser is NewParser over Flags itself, help texts included: for a command line
// that asks for help alone, which would otherwise build both parsers.
func NewHelpParser(f *Flags, env Env, options ...kong.Option) (*kong.Kong, error) {
	f.src = &source{env: env}
	return newParser(f, f.src, options...)
}

// HelpModel is the model of kimi-run's command line with every flag's help text, for what
// shows them; options as NewParser's.
func HelpModel(options ...kong.Option) (*kong.Application, error) {
	k, err := newParser(&Flags{}, &source{env: MapEnv{}}, options...)
	if err != nil {
		return nil, err
	}
	return k.Model, nil
}
