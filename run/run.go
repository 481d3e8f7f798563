// Package run is one print-mode run of kimi-run, its composition root: it parses the
// command line, has package config resolve the settings, reads the prompt, assembles the
// model, the tools, the agent and the output sink, handles signals and the wall-clock
// timeout, and maps the outcome to an exit code. It is the only package that knows about
// the process: arguments, the environment, stdin, signals and exit codes.
package run

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"os"
	"time"

	"github.com/kimi-run/kimi-run/agentspec"
	"github.com/kimi-run/kimi-run/completion"
	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/event"

	"github.com/alecthomas/kong"
	"github.com/mattn/go-isatty"

	"github.com/kimi-run/kimi-run/docs"
	"github.com/kimi-run/kimi-run/internal/launch"
	"github.com/kimi-run/kimi-run/output"
)

// IO is the process's standard streams and environment.
type IO struct {
	Stdin  Stdin
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
	// from the process's own /proc entries (run/procself.go). Tests that call Main in
	// their own process leave it unset.
	Self bool

	self *selfProc // the handle Self brings, until start hides the secrets
}

// env is the environment as the run reads it: the one way configuration and children's
// environments reach the environment of the process.
func (sio IO) env() config.Env {
	return config.FuncEnv{GetenvFunc: sio.Getenv, EnvironFunc: sio.Environ}
}

// kongExit carries kong's exit request (after --help or --version) out of Parse.
type kongExit struct{ code int }

// Main runs kimi-run with args (without the program name) and returns the exit code.
func Main(args []string, sio IO, version string) (code ExitCode) {
	if len(args) > 0 && args[0] == launch.ServeArg {
		// The run's launcher process, or its confined arm (see internal/launch): it starts
		// the run's children and ends what they leave when the run ends. It may outlive the
		// run and starts with no environment: none of it stays readable. kimi-run's own
		// binary never gets here: internal/launch/early serves before its initialisers.
		if sio.Self {
			p, _ := hardenSelf(nil)
			_ = p.hide(nil, anyVar)
		}
		return ExitCode(launch.Serve(args[1:]))
	}
	if sio.Self {
		// Before anything reads the environment: the strings it hands out must not point
		// into the block that start overwrites.
		sio.self, args = hardenSelf(args)
		if sio.self != nil && sio.self.mem != nil {
			defer sio.self.mem.Close() // done by start, unless the run ends before it
		}
	}
	if sio.Getenv == nil {
		sio.Getenv = os.Getenv
	}
	if sio.Environ == nil {
		sio.Environ = os.Environ
	}
	if len(args) == 1 && (args[0] == "--version" || args[0] == "-V") {
		// Scripts call this to probe the binary; building the flag parser would double its cost.
		fmt.Fprintf(sio.Stdout, "kimi-run %s\n", version)
		return ExitOK
	}
	var cli CLI
	parser, err := newParser(&cli, sio, version)
	if err != nil {
		fmt.Fprintf(sio.Stderr, "kimi-run: internal error: %v\n", err)
		return ExitError
	}
	defer func() {
		if r := recover(); r != nil {
			ke, ok := r.(kongExit)
			if !ok {
				panic(r)
			}
			code = ExitOK
			if ke.code != 0 {
				code = ExitUsage
			}
		}
	}()
	if shell, ok := completion.Request(args); ok {
		// --agent's values are not a kong enum: its empty default means "default".
		return exitIf(completion.Write(sio.Stdout, parser.Model, shell, map[string][]string{"agent": agentspec.Builtins}))
	}
	if _, err := parser.Parse(args); err != nil {
		// kong exits 80 by default; a usage error is 2 for a shell script.
		fmt.Fprintf(sio.Stderr, "kimi-run: %v (kimi-run --help lists the flags)\n", err)
		if format, kimiLines := rawOutput(args); (format == "stream-json" || format == "json") && !kimiLines {
			// The stream's last line is a result even when the flags did not parse.
			output.NewJSON(sio.Stdout).Emit(event.Event{Time: time.Now(), Data: event.Result{
				Status: "error", TerminalReason: "error", ExitCode: int(ExitUsage),
				Error: &event.ErrorInfo{Kind: "usage", Message: err.Error()},
			}})
		}
		return ExitUsage
	}
	if cli.ManPage {
		config.DescribeSources(parser.Model)
		return exitIf(writeManPage(sio.Stdout, parser.Model, version))
	}
	if cli.PrintSchema {
		_, err := io.WriteString(sio.Stdout, docs.EventsSchema)
		return exitIf(err)
	}
	if cli.ListSessions || cli.ShowSession != "" {
		return housekeeping(context.Background(), &cli, sio)
	}
	return execute(&cli, sio, version)
}

// newParser builds the parser of the command line into cli.
func newParser(cli *CLI, sio IO, version string) (*kong.Kong, error) {
	return config.NewParser(cli, sio.env(),
		kong.Name("kimi-run"),
		kong.Description(description),
		kong.Vars{"version": "kimi-run " + version},
		kong.Writers(sio.Stdout, sio.Stderr),
		kong.Exit(func(c int) { panic(kongExit{c}) }))
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

// newID returns a random session id.
func newID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "session"
	}
	return hex.EncodeToString(b[:])
}
