//go:build !linux

package launcher

import "github.com/kimi-run/kimi-run/internal/launch"

// Serve is not available here: children start from kimi-run itself.
func Serve([]string) int { return 125 }

// New is nil here: there is no launcher process, children start from kimi-run itself.
func New(string, *launch.Launcher) launch.Starter { return nil }

// CanLimitTasks is false: there are no cgroups here.
func CanLimitTasks() bool { return false }
