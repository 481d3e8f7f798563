//go:build !linux

package sandbox

import (
	"fmt"
	"os"
	"runtime"
)

// ABI is 0: Landlock exists on Linux only.
func ABI() int { return 0 }

func check(Policy) error {
	return fmt.Errorf("%w: it uses Linux Landlock, and this is %s; run kimi-run in a Linux container or VM to sandbox it", ErrUnsupported, runtime.GOOS)
}

// Confine fails everywhere but on Linux; kimi-run never calls it there, since Check fails.
func Confine(Policy) error { return check(Policy{}) }

// OpenDir opens dir: there is no sandbox here to confine the write tools.
func (p Policy) OpenDir(dir string) (*os.File, error) { return os.Open(dir) }
