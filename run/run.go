// Package run is one print-mode run of kimi-run, its composition root: it parses the
// command line, has package config resolve the settings, reads the prompt, assembles the
// model, the tools, the agent and the output sink, handles signals and the wall-clock
// timeout, and maps the outcome to an exit code. It is the only package that knows about
// the process: arguments, the environment, stdin, signals and exit codes.
package run

import (
	"io"
	"net/url"
	"os"

	"github.com/mattn/go-isatty"

	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/internal/infile"
	"github.com/kimi-run/kimi-run/internal/procself"
)

// IO is the process's standard streams and environment.
type IO struct {
	Stdin  infile.Stdin
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	// Environ lists the environment (KEY=value) that the run's commands, hooks and MCP
	// servers start from, less kimi-run's credentials; nil means os.Environ.
	Environ func() []string
	// Signals delivers SIGINT, SIGTERM, SIGHUP and SIGQUIT; nil means none (tests).
	Signals <-chan os.Signal
	// SignalsCaught is closed once Signals receives them; nil means it already does. The
	// run opens its event stream (init) only then, so a signal sent by anyone who saw
	// the run start is always the run's to handle.
	SignalsCaught <-chan struct{}
	// Exit ends the process at once, after the result was written: a second signal calls
	// it, and so does a run still going stopGrace after its deadline. nil means the run
	// never ends the process itself (a run inside tests).
	Exit func(int)
	// Self says that the run is this process (main): its credentials are then hidden
	// from the process's own /proc entries (internal/procself). Tests that call Main in
	// their own process leave it unset.
	Self bool

	self *procself.Self // the handle Self brings, until start hides the secrets
}

// env is the environment as the run reads it: the one way configuration and children's
// environments reach the environment of the process.
func (sio IO) env() config.Env {
	return config.FuncEnv{GetenvFunc: sio.Getenv, EnvironFunc: sio.Environ}
}

// Main runs kimi-run with args (without the program name) and returns the exit code.
func Main(args []string, sio IO, version string) ExitCode {
	if sio.Self {
		// Before anything reads the environment: the strings it hands out must not point
		// into the block that start overwrites.
		sio.self, args = procself.Harden(args)
		defer sio.self.Close() // done by start, unless the run ends before it
	}
	if sio.Getenv == nil {
		sio.Getenv = os.Getenv
	}
	if sio.Environ == nil {
		sio.Environ = os.Environ
	}
	var cli CLI
	if code, done := housekeeping(args, &cli, sio, version); done {
		return code
	}
	return execute(&cli, sio, version)
}

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Host
}

func colorOK(stderr io.Writer, env config.Env) bool {
	if env.Getenv("NO_COLOR") != "" {
		return false
	}
	f, ok := stderr.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}
