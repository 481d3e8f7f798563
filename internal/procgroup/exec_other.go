//go:build !unix

package procgroup

import "errors"

// execve is never reached where the watchdog is not supported (no gate is used there).
func execve(string, []string, []string) error { return errors.New("not supported on this system") }
