package tools

import (
	"fmt"
	"reflect"
	"strings"
	"time"
)

// Settings are the built-in tools' knobs a run sets. config.Flags embeds them, so each
// field is a flag of kimi-run, declared here once: kong's tags (name, default, help) and
// config's (envvar, config), which the parser fills flag > environment > config file >
// default. Validate checks their ranges when the command line is parsed; the run passes
// the whole value to the tools (Env.Settings), and a description quotes a field as
// {flag-name} (Quote), so the model reads the limit the run uses. A tool reads them with
// env.settings(), where a field left zero is its default: a knob whose 0 means something
// (off, no limit) is a pointer.
type Settings struct {
	ShellOutputBytes int `name:"shell-output-bytes" placeholder:"BYTES" default:"40000" envvar:"KIMI_RUN_SHELL_OUTPUT_BYTES" config:"tools.shell_output_bytes" help:"Most bytes of a Shell command's output the model reads, its start and its end (1000 to 40000)."`
}

// Validate refuses a setting out of its range. kong calls it once the flags are parsed.
func (s Settings) Validate() error {
	if n := s.ShellOutputBytes; n < 1000 || n > 40_000 {
		// Inside the agent's Cap, which would otherwise cut the tail, where errors usually are.
		return fmt.Errorf("--shell-output-bytes must be 1000 to 40000, got %d", n)
	}
	return nil
}

// Quote fills the {flag-name} placeholders of text with the values of s.
func (s Settings) Quote(text string) string {
	v := reflect.ValueOf(s)
	for i := range v.NumField() {
		text = strings.ReplaceAll(text, "{"+v.Type().Field(i).Tag.Get("name")+"}", fmt.Sprint(v.Field(i).Interface()))
	}
	return text
}

// withDefaults is s with each field left zero set to its declared default: the tools
// built without a parsed command line (tests, AllBuiltins) get the defaults.
func (s Settings) withDefaults() Settings {
	v := reflect.ValueOf(&s).Elem()
	for i := range v.NumField() {
		def, f := v.Type().Field(i).Tag.Get("default"), v.Field(i)
		if !f.IsZero() || def == "" {
			continue
		}
		var err error
		if d, ok := f.Addr().Interface().(*time.Duration); ok {
			*d, err = time.ParseDuration(def)
		} else {
			_, err = fmt.Sscan(def, f.Addr().Interface())
		}
		if err != nil {
			panic(fmt.Sprintf("tools: the default of Settings.%s: %v", v.Type().Field(i).Name, err))
		}
	}
	return s
}
