package config

import "fmt"

// UsageError is a problem with the command line, the environment, a configuration file or
// the prompt: exit 2, before any model call. It keeps the error it wraps (a flow's parse
// error, a skill's).
type UsageError struct{ err error }

func (e *UsageError) Error() string { return e.err.Error() }
func (e *UsageError) Unwrap() error { return e.err }

// Usagef formats a usage error; %w wraps its cause.
func Usagef(format string, a ...any) error {
	return &UsageError{err: fmt.Errorf(format, a...)}
}
