package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/alecthomas/kong"

	"github.com/kimi-run/kimi-run/agentspec"
	"github.com/kimi-run/kimi-run/completion"
	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/docs"
	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/beneath"
	"github.com/kimi-run/kimi-run/output"
	"github.com/kimi-run/kimi-run/session"
)

// housekeeping parses args into cli and serves every mode that is not a run: --version,
// --help, shell completion, --man-page, --print-schema, --list-sessions and --show-session,
// and a command line that does not parse (exit 2). done says it served one, with code.
func housekeeping(args []string, cli *CLI, sio IO, version string) (code ExitCode, done bool) {
	if len(args) == 1 && (args[0] == "--version" || args[0] == "-V") {
		// Scripts call this to probe the binary; building the flag parser would double its cost.
		fmt.Fprintf(sio.Stdout, "kimi-run %s\n", version)
		return ExitOK, true
	}
	parser, err := newParser(cli, sio, version)
	if err != nil {
		fmt.Fprintf(sio.Stderr, "kimi-run: internal error: %v\n", err)
		return ExitError, true
	}
	defer func() {
		if r := recover(); r != nil {
			ke, ok := r.(kongExit)
			if !ok {
				panic(r)
			}
			code, done = ExitOK, true
			if ke.code != 0 {
				code = ExitUsage
			}
		}
	}()
	if shell, ok := completion.Request(args); ok {
		// --agent's values are not a kong enum: its empty default means "default".
		return exitIf(completion.Write(sio.Stdout, parser.Model, shell, map[string][]string{"agent": agentspec.Builtins})), true
	}
	if _, err := parser.Parse(args); err != nil {
		// kong exits 80 by default; a usage error is 2 for a shell script.
		hint, err := config.ParseError(parser.Model, args, err)
		fmt.Fprintf(sio.Stderr, "kimi-run: %v%s\n", err, hint)
		if format, kimiLines := config.RawOutput(args); (format == "stream-json" || format == "json") && !kimiLines {
			// The stream's last line is a result even when the flags did not parse.
			output.NewJSON(sio.Stdout).Emit(event.Event{Time: time.Now(), Data: event.Result{
				Status: "error", TerminalReason: "error", ExitCode: int(ExitUsage),
				Error: &event.ErrorInfo{Kind: "usage", Message: err.Error()},
			}})
		}
		return ExitUsage, true
	}
	switch {
	case cli.ManPage:
		err = config.WriteManPage(sio.Stdout, parser.Model, version, description())
	case cli.PrintSchema:
		_, err = io.WriteString(sio.Stdout, docs.EventsSchema)
	case cli.ListSessions || cli.ShowSession != "":
		return sessions(context.Background(), cli, sio), true
	default:
		return 0, false
	}
	return exitIf(err), true
}

// kongExit carries kong's exit request (after --help or --version) out of Parse.
type kongExit struct{ code int }

// newParser builds the parser of the command line into cli. It gives kong no variables and
// no description: kong runs each through its interpolation regexp for every flag at every
// start; the version is bound to -V, the description built when --help-all prints it.
func newParser(cli *CLI, sio IO, version string) (*kong.Kong, error) {
	return config.NewParser(cli, sio.env(),
		kong.Name("kimi-run"),
		kong.Bind(config.Describe(description)),
		kong.Help(config.ShortHelp),
		kong.Bind(config.Version("kimi-run "+version)),
		kong.Writers(sio.Stdout, sio.Stderr),
		kong.Exit(func(c int) { panic(kongExit{c}) }))
}

// sessions runs --list-sessions or --show-session: it reads the sessions of the work dir and
// prints them, as text or (with --output-format stream-json) as NDJSON; no model, key or
// prompt is involved. Flags as a mode rather than a subcommand: a prompt given as words can
// never be taken for one.
func sessions(ctx context.Context, cli *CLI, sio IO) ExitCode {
	fail := func(code ExitCode, err error) ExitCode {
		fmt.Fprintf(sio.Stderr, "kimi-run: %v\n", err)
		return code
	}
	if err := cli.Conflict(); err != nil {
		return fail(ExitUsage, err)
	}
	workDir, err := cli.AbsWorkDir()
	if err != nil {
		return fail(ExitUsage, err)
	}
	root, err := sessionRoot(cli.SessionDir, workDir, sio.env())
	if err != nil {
		return fail(ExitUsage, err)
	}
	if release, err := beneath.Hold(root); err == nil {
		defer release() // no link below the root is followed, as in a run
	}
	ndjson := cli.OutputFormat == "stream-json"
	if cli.ListSessions {
		all, err := session.List(root)
		if err != nil {
			return fail(ExitError, fmt.Errorf("list sessions in %s: %w", root, err))
		}
		return exitIf(session.WriteList(sio.Stdout, all, ndjson))
	}
	id := cli.ShowSession
	if !session.ValidID(id) {
		return fail(ExitUsage, usagef("invalid session id %q: use letters, digits, '.', '_' and '-'", id))
	}
	dir := filepath.Join(root, id)
	info, err := session.Load(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return fail(ExitUsage, usagef("no session %s for %s (in %s); --list-sessions lists them", id, workDir, root))
	} else if err != nil {
		return fail(ExitError, fmt.Errorf("read session %s: %w", id, err))
	}
	restored, err := session.Read(ctx, filepath.Join(dir, session.ContextFile))
	if err != nil {
		return fail(ExitError, fmt.Errorf("read session %s: %w", id, err))
	}
	for _, w := range restored.Warnings {
		fmt.Fprintf(sio.Stderr, "kimi-run: session %s: %s\n", id, w)
	}
	return exitIf(session.WriteTranscript(sio.Stdout, info, restored, ndjson))
}
