package run

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kimi-run/kimi-run/model"
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
	if err := housekeepingUsage(cli); err != nil {
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
		all, err := listSessions(root)
		if err != nil {
			return fail(ExitError, fmt.Errorf("list sessions in %s: %w", root, err))
		}
		if ndjson {
			err = writeSessionsNDJSON(sio.Stdout, all)
		} else {
			err = writeSessionsText(sio.Stdout, all)
		}
		return exitIf(err)
	}
	id := cli.ShowSession
	if !validSessionID(id) {
		return fail(ExitUsage, usagef("invalid session id %q: use letters, digits, '.', '_' and '-'", id))
	}
	dir := filepath.Join(root, id)
	info, ok := loadSession(dir)
	if !ok {
		return fail(ExitUsage, usagef("no session %s for %s (in %s); --list-sessions lists them", id, workDir, root))
	}
	restored, err := session.Read(ctx, filepath.Join(dir, contextFile))
	if err != nil {
		return fail(ExitError, fmt.Errorf("read session %s: %w", id, err))
	}
	for _, w := range restored.Warnings {
		fmt.Fprintf(sio.Stderr, "kimi-run: session %s: %s\n", id, w)
	}
	if ndjson {
		err = writeConversationNDJSON(sio.Stdout, info, restored)
	} else {
		err = writeConversationText(sio.Stdout, info, restored)
	}
	return exitIf(err)
}

// housekeepingUsage refuses flags that would make a run: these modes run nothing.
func housekeepingUsage(cli *CLI) error {
	if cli.ListSessions && cli.ShowSession != "" {
		return usagef("--list-sessions and --show-session cannot be combined")
	}
	mode := "--list-sessions"
	if cli.ShowSession != "" {
		mode = "--show-session"
	}
	if cli.Prompt != "" || len(cli.Words) > 0 || cli.PromptFile != "" || cli.Command != nil || cli.Flow != "" {
		return usagef("%s prints sessions and runs nothing: it takes no prompt", mode)
	}
	if cli.Session != "" || cli.Resume != "" || cli.Continue || cli.NoSession {
		return usagef("%s cannot be combined with --session, --continue or --no-session", mode)
	}
	return nil
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

// sessionLine is one session in --list-sessions NDJSON, and the first line of --show-session
// NDJSON: the session's meta record, its outcome as it stands now, and how to resume it.
type sessionLine struct {
	Type string `json:"type"`
	sessionMeta
	Resume string `json:"resume"`
}

func toLine(s sessionInfo) sessionLine {
	l := sessionLine{Type: "session", sessionMeta: s.sessionMeta, Resume: "kimi-run --session " + s.ID}
	l.Outcome = s.State
	return l
}

func writeSessionsNDJSON(w io.Writer, all []sessionInfo) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, s := range all {
		if err := enc.Encode(toLine(s)); err != nil {
			return err
		}
	}
	return nil
}

func writeSessionsText(w io.Writer, all []sessionInfo) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTARTED\tOUTCOME\tPROMPT")
	for _, s := range all {
		outcome := s.State
		if s.ExitCode != nil {
			outcome = fmt.Sprintf("%s (%d)", s.State, *s.ExitCode)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.ID, s.Started.Local().Format(time.DateTime), outcome, s.Prompt)
	}
	return tw.Flush()
}

// messageLine is one message in --show-session NDJSON.
type messageLine struct {
	Type       string         `json:"type"`
	Role       string         `json:"role"`
	Content    string         `json:"content"`
	Reasoning  string         `json:"reasoning,omitempty"`
	ToolCalls  []toolCallLine `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
	Name       string         `json:"name,omitempty"`
}

type toolCallLine struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

func writeConversationNDJSON(w io.Writer, info sessionInfo, r *session.Restored) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(toLine(info)); err != nil {
		return err
	}
	if r.SystemPrompt != "" {
		if err := enc.Encode(messageLine{Type: "message", Role: model.RoleSystem, Content: r.SystemPrompt}); err != nil {
			return err
		}
	}
	for _, m := range r.Messages {
		line := messageLine{Type: "message", Role: m.Role, Content: m.Content, Reasoning: m.Reasoning, ToolCallID: m.ToolCallID, Name: m.Name}
		for _, c := range m.ToolCalls {
			line.ToolCalls = append(line.ToolCalls, toolCallLine{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
		}
		if err := enc.Encode(line); err != nil {
			return err
		}
	}
	return nil
}

func writeConversationText(w io.Writer, info sessionInfo, r *session.Restored) error {
	var b strings.Builder
	fmt.Fprintf(&b, "session %s\n", info.ID)
	fmt.Fprintf(&b, "started %s, %d run(s), outcome %s\n", info.Started.Local().Format(time.DateTime), info.Runs, info.describe())
	if info.SessionWarning != "" {
		fmt.Fprintf(&b, "warning: %s\n", info.SessionWarning)
	}
	fmt.Fprintf(&b, "resume with: kimi-run --session %s\n", info.ID)
	for _, m := range r.Messages {
		switch m.Role {
		case model.RoleTool:
			fmt.Fprintf(&b, "\n--- tool result %s (%s)\n", m.Name, m.ToolCallID)
		default:
			fmt.Fprintf(&b, "\n--- %s\n", m.Role)
		}
		if m.Reasoning != "" {
			fmt.Fprintf(&b, "(thinking) %s\n", strings.TrimRight(m.Reasoning, "\n"))
		}
		if m.Content != "" {
			b.WriteString(strings.TrimRight(m.Content, "\n"))
			b.WriteByte('\n')
		}
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, "-> %s %s (%s)\n", c.Name, c.Arguments, c.ID)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
