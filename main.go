// Command kimi-run is the non-interactive print mode of a Kimi-style coding agent.
//
// Copyright the kimi-run authors. Licensed under the Apache License, Version 2.0 (the
// LICENSE file at the root of the module; SPDX-License-Identifier: Apache-2.0).
package main

import (
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	// The launcher mode runs from this package's initialiser, before the rest initialise.
	_ "github.com/kimi-run/kimi-run/internal/launch/early"
	"github.com/kimi-run/kimi-run/run"
)

// Set by the release build through -ldflags.
var version, commit, date = "dev", "none", "unknown"

func main() {
	sig := make(chan os.Signal, 2)
	caught := make(chan struct{})
	// SIGHUP (a lost terminal or ssh session) and SIGQUIT end the run as SIGTERM does,
	// with a result and their own exit codes, rather than as the runtime would. Catching
	// each costs a round trip to the runtime's signal thread (about half a millisecond for
	// the four on a small VM): it happens beside the run's set-up, which waits for it
	// before its event stream opens (run.IO.SignalsCaught), and --version never waits.
	go func() {
		defer close(caught)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	}()
	os.Exit(int(run.Main(os.Args[1:], run.IO{
		Stdin:         os.Stdin,
		Stdout:        os.Stdout,
		Stderr:        os.Stderr,
		Getenv:        os.Getenv,
		Environ:       os.Environ,
		Signals:       sig,
		SignalsCaught: caught,
		Exit:          os.Exit,
		Self:          true,
	}, versionString())))
}

// versionString reports the release version, or for other builds what Go recorded in the
// binary (buildVersion).
func versionString() string {
	if version != "dev" {
		return version + " (" + commit + ", " + date + ")"
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return version
	}
	return buildVersion(info)
}

// buildVersion is the module version of a `go install` build, or "dev" for a build of a
// checkout, followed by the VCS revision when Go stamped one (the default -buildvcs in a
// git checkout) and the version does not already carry it (a pseudo-version does).
func buildVersion(info *debug.BuildInfo) string {
	v := info.Main.Version
	if v == "" || v == "(devel)" {
		v = "dev"
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 && !strings.Contains(v, s.Value[:12]) {
			v += " (" + s.Value[:7] + ")"
		}
	}
	return v
}
