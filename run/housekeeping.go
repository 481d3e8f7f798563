package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kimi-run/kimi-run/session"
)

// housekeeping runs --list-sessions or --show-session: it reads the sessions of the work dir
// and prints them, as text or (with --output-format stream-json) as NDJSON; no model, key or
// prompt is involved. Flags as a mode rather than a subcommand: a prompt given as words can
// never be taken for one.
func housekeeping(ctx context.Context, cli *CLI, sio IO) ExitCode {
	fail := func(code ExitCode, err error) ExitCode {
		fmt.Fprintf(sio.Stderr, "kimi-run: %v\n", err)
		return code
	}
	if err := cli.Conflict(); err != nil {
		return fail(ExitUsage, err)
	}
	workDir, err := housekeepingWorkDir(cli)
	if err != nil {
		return fail(ExitUsage, err)
	}
	root, err := sessionRoot(cli.SessionDir, workDir, sio.env())
	if err != nil {
		return fail(ExitUsage, err)
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
	info, ok := session.Load(dir)
	if !ok {
		return fail(ExitUsage, usagef("no session %s for %s (in %s); --list-sessions lists them", id, workDir, root))
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

func housekeepingWorkDir(cli *CLI) (string, error) {
	dir := cli.WorkDir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", usagef("cannot find the current directory: %v", err)
		}
		dir = wd
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", usagef("work dir %s: %v", dir, err)
	}
	return abs, nil
}
