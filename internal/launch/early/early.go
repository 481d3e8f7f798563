// Package early runs kimi-run's launcher mode (launcher.Serve) from a package initialiser,
// before the packages the launcher does not need have initialised: it imports only
// internal/launch/launcher, and main imports it for that alone (see that package's doc).
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
