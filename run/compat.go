package run

import "strings"

// rawOutput reads, in one pass over the raw arguments, what they ask of stdout, for an
// error found before the flags could be parsed: the --output-format value (the last one,
// as the parser keeps it) and whether --print asks for Kimi CLI's message lines, which
// never carry kimi-run's result event. (The Kimi flags themselves are resolved in
// config/kimi.go.) Arguments after "--" are prompt words.
func rawOutput(args []string) (format string, kimiLines bool) {
	for i, a := range args {
		switch {
		case a == "--":
			return format, kimiLines
		case a == "--print" || a == "--print=true":
			kimiLines = true
		case strings.HasPrefix(a, "--output-format="):
			format = strings.TrimPrefix(a, "--output-format=")
		case a == "--output-format" && i+1 < len(args):
			format = args[i+1]
		}
	}
	return format, kimiLines
}
