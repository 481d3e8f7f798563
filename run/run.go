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
	// Signals delivers SIGINT and SIGTERM; nil means none (tests).
	Signals <-chan os.Signal
	// Exit ends the process at once; a second signal calls it. nil means os.Exit.
	Exit func(int)
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
		// the run's children and ends what they leave when the run ends.
		return ExitCode(launch.Serve(args[1:]))
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
	parser, err := kong.New(&cli,
		kong.Name("kimi-run"),
		kong.Description(description),
		kong.Vars{"version": "kimi-run " + version},
		kong.Writers(sio.Stdout, sio.Stderr),
		kong.Exit(func(c int) { panic(kongExit{c}) }),
		// --ralph -1 means "no limit"; without this kong reads -1 as a short flag.
		kong.WithHyphenPrefixedParameters(true),
	)
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
	if shell, ok := completionRequest(args); ok {
		return exitIf(writeCompletion(sio.Stdout, parser.Model, shell))
	}
	kctx, err := parser.Parse(args)
	if err != nil {
		// kong exits 80 by default; a usage error is 2 for a shell script.
		fmt.Fprintf(sio.Stderr, "kimi-run: %v (kimi-run --help lists the flags)\n", err)
		if (wantsJSON(args) || wantsFinalJSON(args)) && !kimiProfile(args) {
			// The stream's last line is a result even when the flags did not parse.
			output.NewJSON(sio.Stdout).Emit(event.Event{Time: time.Now(), Data: event.Result{
				Status: "error", TerminalReason: "error", ExitCode: int(ExitUsage),
				Error: &event.ErrorInfo{Kind: "usage", Message: err.Error()},
			}})
		}
		return ExitUsage
	}
	if cli.ManPage {
		return exitIf(writeManPage(sio.Stdout, parser.Model, version))
	}
	if cli.PrintSchema {
		_, err := io.WriteString(sio.Stdout, docs.EventsSchema)
		return exitIf(err)
	}
	cli.NoteGiven(kctx)
	if cli.ListSessions || cli.ShowSession != "" {
		return housekeeping(context.Background(), &cli, sio)
	}
	return execute(&cli, sio, version)
}

// headers are the provider's custom headers plus our User-Agent.
func headers(custom map[string]string, version string) map[string]string {
	h := map[string]string{"User-Agent": "kimi-run/" + version}
	for k, v := range custom {
		h[k] = v
	}
	return h
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

// withSignals cancels ctx on the first SIGINT or SIGTERM and exits at once on the second.
func withSignals(parent context.Context, sio IO) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	if sio.Signals == nil {
		return ctx, func() { cancel(nil) }
	}
	exit := sio.Exit
	if exit == nil {
		exit = os.Exit
	}
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sio.Signals:
			cancel(&signalError{sig: s})
		case <-done:
			return
		}
		select {
		case s := <-sio.Signals:
			code := ExitInterrupt
			if signalName(s) == "SIGTERM" {
				code = ExitTerminated
			}
			exit(int(code))
		case <-done:
		}
	}()
	return ctx, func() { close(done); cancel(nil) }
}

// wantsFinalJSON reports whether raw arguments ask for --output-format json, whose one
// object is the result, for errors found before the flags could be parsed.
func wantsFinalJSON(args []string) bool {
	for i, a := range args {
		if a == "--" {
			return false
		}
		if a == "--output-format=json" || (a == "--output-format" && i+1 < len(args) && args[i+1] == "json") {
			return true
		}
	}
	return false
}

// wantsJSON reports whether raw arguments ask for stream-json output, for errors found
// before the flags could be parsed.
func wantsJSON(args []string) bool {
	for i, a := range args {
		if a == "--" {
			return false
		}
		if a == "--output-format=stream-json" || (a == "--output-format" && i+1 < len(args) && args[i+1] == "stream-json") {
			return true
		}
	}
	return false
}
