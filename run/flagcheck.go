package run

import "github.com/alecthomas/kong"

// flagCounts counts the occurrences of each flag on the command line.
func flagCounts(kctx *kong.Context) map[string]int {
	n := map[string]int{}
	if kctx != nil {
		for _, p := range kctx.Path {
			if p.Flag != nil {
				n[p.Flag.Name]++
			}
		}
	}
	return n
}

// checkFlagValues refuses flag values that parse but cannot be meant, before anything
// else runs: a negative wait, and an empty value for a flag whose empty value would
// silently mean "not given" (a new session instead of the one asked for, the default
// endpoint instead of the one asked for). Usually a shell variable that was not set.
func checkFlagValues(cli *CLI) error {
	for _, d := range []struct {
		name  string
		value int64
	}{{"--stdin-timeout", int64(cli.StdinTimeout)}, {"--session-wait", int64(cli.SessionWait)}} {
		if d.value < 0 {
			return usagef("%s must not be negative", d.name)
		}
	}
	for _, f := range []struct {
		flag, name, value string
	}{
		{"session", "-S/--session", cli.Session},
		{"resume", "-r/--resume", cli.Resume},
		{"base-url", "--base-url", cli.BaseURL},
		{"fallback-model", "--fallback-model", cli.FallbackModel},
	} {
		if cli.given[f.flag] && f.value == "" {
			return usagef("%s is empty (an unset shell variable?); leave the flag out for the default", f.name)
		}
	}
	for _, f := range []struct{ flag, name string }{{"prompt", "-p/--prompt"}, {"command", "-c/--command"}, {"prompt-file", "--prompt-file"}} {
		if cli.times[f.flag] > 1 {
			return usagef("%s is given %d times; give the prompt once", f.name, cli.times[f.flag])
		}
	}
	return nil
}
