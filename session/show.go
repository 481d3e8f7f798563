package session

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kimi-run/kimi-run/model"
)

// WriteList writes the sessions as --list-sessions shows them: a table, or one NDJSON line
// each.
func WriteList(w io.Writer, all []Info, ndjson bool) error {
	if ndjson {
		return writeSessionsNDJSON(w, all)
	}
	return writeSessionsText(w, all)
}

// WriteTranscript writes a session's conversation as --show-session shows it: a readable
// transcript, or NDJSON (the session line, then one line a message).
func WriteTranscript(w io.Writer, info Info, r *Restored, ndjson bool) error {
	if ndjson {
		return writeConversationNDJSON(w, info, r)
	}
	return writeConversationText(w, info, r)
}

// sessionLine is one session in --list-sessions NDJSON, and the first line of --show-session
// NDJSON: the session's meta record, its outcome as it stands now, and how to resume it.
type sessionLine struct {
	Type string `json:"type"`
	Meta
	Resume string `json:"resume"`
}

func toLine(s Info) sessionLine {
	l := sessionLine{Type: "session", Meta: s.Meta, Resume: "kimi-run --session " + s.ID}
	l.Outcome = s.State
	return l
}

func writeSessionsNDJSON(w io.Writer, all []Info) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, s := range all {
		if err := enc.Encode(toLine(s)); err != nil {
			return err
		}
	}
	return nil
}

func writeSessionsText(w io.Writer, all []Info) error {
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

// checkpointLine is a checkpoint in --show-session NDJSON, where it stands in the
// conversation, with the flag that rewinds the session to it.
type checkpointLine struct {
	Type   string `json:"type"`
	ID     int    `json:"id"`
	Rewind string `json:"rewind"`
}

// checkpointsAt lists, for each message index, the checkpoints taken just before it; those
// after the last message are at len(Messages).
func checkpointsAt(r *Restored) map[int][]int {
	at := map[int][]int{}
	for id, n := range r.Checkpoints {
		at[n] = append(at[n], id)
	}
	return at
}

type toolCallLine struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

func writeConversationNDJSON(w io.Writer, info Info, r *Restored) error {
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
	at := checkpointsAt(r)
	checkpoints := func(i int) error {
		for _, id := range at[i] {
			if err := enc.Encode(checkpointLine{Type: "checkpoint", ID: id, Rewind: fmt.Sprintf("kimi-run --session %s --rewind %d", info.ID, id)}); err != nil {
				return err
			}
		}
		return nil
	}
	for i, m := range r.Messages {
		if err := checkpoints(i); err != nil {
			return err
		}
		line := messageLine{Type: "message", Role: m.Role, Content: m.Content, Reasoning: m.Reasoning, ToolCallID: m.ToolCallID, Name: m.Name}
		for _, c := range m.ToolCalls {
			line.ToolCalls = append(line.ToolCalls, toolCallLine{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
		}
		if err := enc.Encode(line); err != nil {
			return err
		}
	}
	return checkpoints(len(r.Messages))
}

func writeConversationText(w io.Writer, info Info, r *Restored) error {
	var b strings.Builder
	fmt.Fprintf(&b, "session %s\n", info.ID)
	fmt.Fprintf(&b, "started %s, %d run(s), outcome %s\n", info.Started.Local().Format(time.DateTime), info.Runs, info.Describe())
	if info.SessionWarning != "" {
		fmt.Fprintf(&b, "warning: %s\n", info.SessionWarning)
	}
	fmt.Fprintf(&b, "resume with: kimi-run --session %s\n", info.ID)
	at := checkpointsAt(r)
	checkpoints := func(i int) {
		for _, id := range at[i] {
			fmt.Fprintf(&b, "\n=== checkpoint %d (--rewind %d)\n", id, id)
		}
	}
	for i, m := range r.Messages {
		checkpoints(i)
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
	checkpoints(len(r.Messages))
	_, err := io.WriteString(w, b.String())
	return err
}
