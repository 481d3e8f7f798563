// Package early runs kimi-run's launcher mode (launcher.Serve) from a package initialiser,
// before the packages the launcher does not need have initialised.
//
// The run's launcher process, and under the sandbox its confined arm, is kimi-run's own
// image started with launcher.ServeArg, and its start is on the path of a run's first
// child. Go runs every package initialiser of a binary before main, in an order set by
// import paths and dependencies: the launcher would first pay for the flag parser's, the
// telemetry SDK's, the config file parser's and all the others'. This package imports
// only internal/launch/launcher, so it is initialised as soon as that is; main imports it
// for that alone. About half of the package initialisers are skipped, and half of the
// instructions before the launcher's loop (docs/performance.md, "Starting a child").
//
// Nothing is read from the environment: the launcher starts with an empty one (launcher
// starts it so), and makes itself not dumpable before it reads anything.
package early

import (
	"os"

	"github.com/kimi-run/kimi-run/internal/launch/launcher"
)

func init() {
	if len(os.Args) > 1 && os.Args[1] == launcher.ServeArg {
		os.Exit(launcher.Serve(os.Args[2:]))
	}
}
