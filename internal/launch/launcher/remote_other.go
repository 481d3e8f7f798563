//go:build !linux

package launcher

import (
	"errors"

	"github.com/kimi-run/kimi-run/internal/launch"
)

// Serve is not available here: children start from kimi-run itself.
func Serve([]string) int { return 125 }

// New is nil here: there is no launcher process, children start from kimi-run itself.
func New(string, *launch.Launcher) launch.Starter { return nil }

// NetNSWorks reports that a confined arm cannot be isolated: network namespaces are
// Linux's.
func NetNSWorks(string) error { return errors.New("network namespaces exist on Linux only") }
