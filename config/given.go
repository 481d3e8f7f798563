package config

import "github.com/alecthomas/kong"

// NoteGiven records which flags the command line gave and how often, right after kong
// parsed it into f: an explicit value (even 0) beats the config file, clashing synonyms
// are refused, and a single-valued flag given twice is not silently the last.
func (f *Flags) NoteGiven(kctx *kong.Context) {
	f.given, f.times = map[string]bool{}, map[string]int{}
	if kctx == nil {
		return
	}
	for _, p := range kctx.Path {
		if p.Flag != nil {
			f.given[p.Flag.Name] = true
			f.times[p.Flag.Name]++
		}
	}
}

// Given reports whether the command line gave the flag of this long name.
func (f *Flags) Given(name string) bool { return f.given[name] }

// Times is how often the command line gave the flag of this long name.
func (f *Flags) Times(name string) int { return f.times[name] }

// KimiMessages reports whether stdout carries Kimi CLI's message lines: --print with
// --output-format stream-json.
func (f *Flags) KimiMessages() bool {
	return f.Print && f.OutputFormat == "stream-json"
}

// Conversing reports whether stdin carries Kimi user messages, one turn each.
func (f *Flags) Conversing() bool { return f.InputFormat == "stream-json" }
