//go:build !linux

package launch

import "errors"

// ServeArg is the first argument of kimi-run's launcher mode, which only Linux has.
const ServeArg = "__kimi-run-launcher"

// Serve is not available here: children start from kimi-run itself.
func Serve([]string) int { return 125 }

// remote is empty: there is no launcher process here.
type remote struct{}

var errNoLauncher = errors.New("no launcher process on this system")

func (l *Launcher) startRemote(bool, string, []string, []string, Spec) (*Proc, error) {
	return nil, errNoLauncher
}

func (l *Launcher) warmRemote(bool) {}

// IsArm is false: there are no confined arms here.
func (l *Launcher) IsArm(int) bool { return false }

func (l *Launcher) closeRemote() {}

// CanLimitTasks is false: there are no cgroups here.
func CanLimitTasks() bool { return false }
