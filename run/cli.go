package run

import "github.com/kimi-run/kimi-run/config"

// CLI is the parsed command line (config.Flags); the name stays for the tests that build
// the flag parser from it.
type CLI = config.Flags
