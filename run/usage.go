package run

import "github.com/kimi-run/kimi-run/config"

// usageError is a problem with the command line, the environment or the prompt: exit 2,
// before any model call (config.UsageError, which the configuration's problems are too).
type usageError = config.UsageError

// usagef formats a usage error; %w wraps its cause.
func usagef(format string, a ...any) error { return config.Usagef(format, a...) }
