package config

import "github.com/alecthomas/kong"

// AfterApply is kong's hook once it has filled f: it notes what the command line gave.
func (f *Flags) AfterApply(kctx *kong.Context) error {
	f.NoteGiven(kctx)
	return nil
}

// NoteGiven records which flags the command line gave and how often, right after kong
// parsed it into f: an explicit value (even 0) beats the config file, clashing synonyms
// are refused, and a single-valued flag given twice is not silently the last. A value a
// declared source filled in is not given.
func (f *Flags) NoteGiven(kctx *kong.Context) {
	f.given, f.times = map[string]bool{}, map[string]int{}
	if kctx == nil {
		return
	}
	for _, p := range kctx.Path {
		if p.Flag != nil && !p.Resolved {
			f.given[p.Flag.Name] = true
			f.times[p.Flag.Name]++
		}
	}
}

// Given reports whether the command line gave the flag of this long name.
func (f *Flags) Given(name string) bool { return f.given[name] }

// From is where the flag's value came from, as a message names it: --name for the command
// line (or a default), a Kimi flag, an environment variable or "config key table.key".
func (f *Flags) From(name string) string {
	if f.src != nil && !f.Given(name) {
		if o, ok := f.src.origin[name]; ok {
			return o
		}
	}
	return "--" + name
}

// Set reports whether a source set the flag rather than its default:
// the command line, a Kimi flag, the environment or the config file.
func (f *Flags) Set(name string) bool {
	if f.Given(name) {
		return true
	}
	if f.src == nil {
		return false
	}
	_, ok := f.src.origin[name]
	return ok
}

// Times is how often the command line gave the flag of this long name.
func (f *Flags) Times(name string) int { return f.times[name] }

// KimiMessages reports whether stdout carries Kimi CLI's message lines: --print with
// --output-format stream-json.
func (f *Flags) KimiMessages() bool {
	return f.Print && f.OutputFormat == "stream-json"
}

// Conversing reports whether stdin carries Kimi user messages, one turn each.
func (f *Flags) Conversing() bool { return f.InputFormat == "stream-json" }
