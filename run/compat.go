package run

// kimiProfile reports whether raw arguments ask for Kimi CLI's print profile (--print), for
// errors found before the flags could be parsed: then stdout carries Kimi's message lines,
// never kimi-run's result event. (The Kimi flags themselves are resolved in config/kimi.go.)
func kimiProfile(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--print" || a == "--print=true" {
			return true
		}
	}
	return false
}
