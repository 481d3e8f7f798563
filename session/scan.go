package session

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kimi-run/kimi-run/model"
)

// maxWarnings bounds Restored.Warnings; a file of random bytes would otherwise yield one
// warning per line.
const maxWarnings = 100

// minCheckpointBytes is the size of the shortest checkpoint record, newline included. A
// file can only have lost as many checkpoint records as fit in the bytes before a gap, which
// bounds how many missing ids a restore fills in (a hand-edited id of 400000000 must not
// cost a slot per missing id).
const minCheckpointBytes = len(`{"role":"_checkpoint","id":0}` + "\n")

// cancelEvery is how many lines a scan reads between looks at its context.
const cancelEvery = 256

// interruptedResult is the tool result a restore gives a tool call whose result was never
// saved (a kill, a lost terminal, a crash of the machine, a full disk, a hand edit):
// providers refuse a conversation with an unanswered call, and the model must know what
// kimi-run knows. A call is saved, and synced, before it starts; its result as soon as it
// ends. So a call without a result was started, or was about to be, and may have done its
// work in full, in part or not at all.
const interruptedResult = "<system>ERROR: this tool call was interrupted: the run stopped (killed, or its machine or terminal went away) after the call was started and before its result was saved. It may have had all, some or none of its effects. Check them before relying on them, and before running it again.</system>"

// interrupted is interruptedResult with what else is known about call (see scan.known).
func (sc *scan) interrupted(c model.CallSpec) string {
	if sc.known == nil {
		return interruptedResult
	}
	more := sc.known(c)
	if more == "" {
		return interruptedResult
	}
	return strings.TrimSuffix(interruptedResult, "</system>") + "\n" + more + "</system>"
}

// scan is what reading a context file found.
type scan struct {
	restored Restored
	// cleanEnd is the offset just past the last newline; everything before it is whole lines.
	cleanEnd int64
	// tail is the number of bytes after cleanEnd; tailOK says they hold a whole record that
	// only lacks its newline (or only blanks).
	tail   int64
	tailOK bool
	// reached says reading stopped at the checkpoint asked for.
	reached bool
	// unlisted counts warnings beyond maxWarnings.
	unlisted int
	// pending holds the tool calls of the last assistant message still waiting for their
	// results, in call order.
	pending []model.CallSpec
	// rank is each call's place in the last assistant message, and groupAt the index in
	// Messages of that message's first result: results are saved as their calls end, and
	// restored in call order, as the run that made them sent them on.
	rank    map[string]int
	groupAt int
	// known, when set, tells what else is known about a call that gets an interrupted
	// result (what a subagent it started had done), or "".
	known func(model.CallSpec) string
	// repaired holds the results made up for calls left pending at the end of the file;
	// Open appends them, so the file is valid for Kimi CLI too.
	repaired []model.Message
}

func (sc *scan) warn(format string, args ...any) {
	if len(sc.restored.Warnings) >= maxWarnings {
		sc.unlisted++
		return
	}
	sc.restored.Warnings = append(sc.restored.Warnings, fmt.Sprintf(format, args...))
}

// scanRecords reads a context file. With stopAt >= 0 it stops at checkpoint stopAt and
// reports whether it got there. keep, when set, receives each record line that became part
// of the restored state (without its newline), so Revert can copy them verbatim. Unreadable
// lines become warnings; only I/O errors, keep's errors and ctx's end fail the scan.
//
// The restored conversation is always one a provider accepts: a tool call without a saved
// result gets an "interrupted" result, and a tool result that answers no pending call (an
// orphan, a duplicate) is dropped, each with a warning. Time and memory are bounded by the
// file's size.
func scanRecords(ctx context.Context, r io.Reader, stopAt int, keep func(line []byte) error) (*scan, error) {
	return scanWith(ctx, &scan{}, r, stopAt, keep)
}

// scanWith is scanRecords into a scan the caller prepared (its known).
func scanWith(ctx context.Context, sc *scan, r io.Reader, stopAt int, keep func(line []byte) error) (*scan, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	for lineNo := 1; ; lineNo++ {
		if lineNo%cancelEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("read session: %w", context.Cause(ctx))
			}
		}
		line, n, ended, tooLong, rerr := readLine(br, buf[:0])
		buf = line
		if rerr != nil && rerr != io.EOF {
			return nil, fmt.Errorf("read session: %w", rerr)
		}
		if n == 0 {
			break
		}
		if ended {
			sc.cleanEnd += n
		} else {
			sc.tail = n
		}
		stop, err := sc.take(lineNo, line, ended, tooLong, stopAt, keep)
		if err != nil {
			return nil, err
		}
		if stop {
			sc.reached = true
			break
		}
		if rerr == io.EOF {
			break
		}
	}
	if !sc.reached {
		made, err := sc.closePending("the end of the file", keep)
		if err != nil {
			return nil, err
		}
		sc.repaired = made
	}
	if sc.unlisted > 0 {
		sc.restored.Warnings = append(sc.restored.Warnings, fmt.Sprintf("%d more warnings not shown", sc.unlisted))
	}
	return sc, nil
}

// take applies one line to the restored state; stop reports that it is checkpoint stopAt.
func (sc *scan) take(lineNo int, line []byte, ended, tooLong bool, stopAt int, keep func([]byte) error) (stop bool, err error) {
	line = bytes.TrimRight(line, "\r")
	sc.tailOK = false
	switch {
	case tooLong:
		sc.warn("line %d: skipped: longer than %d bytes", lineNo, maxRecordBytes)
		return false, nil
	case len(bytes.TrimSpace(line)) == 0:
		sc.tailOK = !ended
		return false, nil
	}
	rec, derr := decodeRecord(line)
	if derr != nil {
		if ended {
			sc.warn("line %d: skipped: %v", lineNo, derr)
		} else {
			sc.warn("line %d: skipped torn last record (%d bytes)", lineNo, len(line))
		}
		return false, nil
	}
	sc.tailOK = !ended
	res := &sc.restored
	switch rec.kind {
	case kindSystemPrompt:
		res.SystemPrompt = rec.text
	case kindUsage:
		res.TokenCount = rec.n
	case kindMessage:
		if rec.dropped > 0 {
			sc.warn("line %d: dropped %d content part(s) other than text and think", lineNo, rec.dropped)
		}
		admitted, altered := sc.admit(lineNo, &rec.msg)
		if !admitted {
			return false, nil
		}
		if err := sc.closeIfNeeded(lineNo, rec.msg, keep); err != nil {
			return false, err
		}
		sc.add(rec.msg)
		if altered && keep != nil {
			return false, keepRecord(toMessageRecord(rec.msg), keep)
		}
	case kindCheckpoint:
		have := len(res.Checkpoints)
		if rec.n < have {
			sc.warn("line %d: skipped repeated checkpoint %d", lineNo, rec.n)
			return false, nil
		}
		// A checkpoint marks a whole conversation: reverting to it must not cut a call
		// from its results.
		if _, err := sc.closePending(fmt.Sprintf("line %d", lineNo), keep); err != nil {
			return false, err
		}
		id := rec.n
		if id > have {
			if lost := (sc.cleanEnd + sc.tail) / int64(minCheckpointBytes); int64(id-have) > lost {
				// More ids missing than records could have been lost: a corrupt id, not lost
				// records. It becomes the next id.
				sc.warn("line %d: checkpoint id %d is out of range (%d was due); taken as %d", lineNo, id, have, have)
				id = have
			} else {
				// The records of the missing ids were lost; place them here, the nearest point
				// known to come after them.
				sc.warn("line %d: checkpoint %d found where %d was due; the missing ids are placed here", lineNo, id, have)
			}
		}
		if stopAt >= 0 && stopAt <= id {
			return true, nil
		}
		for len(res.Checkpoints) <= id {
			res.Checkpoints = append(res.Checkpoints, len(res.Messages))
		}
		if id != rec.n && keep != nil {
			// Copy the id it was given, so the rewritten file agrees with the restore.
			return false, keepRecord(checkpointRecord{Role: recordCheckpoint, ID: id}, keep)
		}
	}
	if keep != nil {
		if err := keep(line); err != nil {
			return false, fmt.Errorf("copy session record: %w", err)
		}
	}
	return false, nil
}

// admit decides whether a message joins the conversation: a tool result must answer a call
// still pending (once), and an assistant message's calls need distinct ids. It may drop
// repeated calls from m, and then says m was altered.
func (sc *scan) admit(lineNo int, m *model.Message) (admitted, altered bool) {
	switch m.Role {
	case model.RoleTool:
		for i, c := range sc.pending {
			if c.ID == m.ToolCallID {
				sc.pending = append(sc.pending[:i], sc.pending[i+1:]...)
				return true, false
			}
		}
		sc.warn("line %d: dropped a tool result for call %q, which no saved tool call is waiting for (orphaned or repeated)", lineNo, m.ToolCallID)
		return false, false
	case model.RoleAssistant:
		seen := make(map[string]bool, len(m.ToolCalls))
		calls := m.ToolCalls[:0:0]
		for _, c := range m.ToolCalls {
			if seen[c.ID] {
				sc.warn("line %d: dropped a repeated tool call id %q", lineNo, c.ID)
				continue
			}
			seen[c.ID] = true
			calls = append(calls, c)
		}
		if len(calls) != len(m.ToolCalls) {
			m.ToolCalls = calls
			return true, true
		}
	}
	return true, false
}

// closeIfNeeded answers the pending calls before a message that is not one of their results.
func (sc *scan) closeIfNeeded(lineNo int, m model.Message, keep func([]byte) error) error {
	if m.Role == model.RoleTool {
		return nil
	}
	_, err := sc.closePending(fmt.Sprintf("line %d", lineNo), keep)
	return err
}

// add appends an admitted message to the conversation; a tool result goes among its
// group's results in call order.
func (sc *scan) add(m model.Message) {
	res := &sc.restored
	switch m.Role {
	case model.RoleAssistant:
		res.Messages = append(res.Messages, m)
		sc.pending = append(sc.pending[:0], m.ToolCalls...)
		sc.rank = make(map[string]int, len(m.ToolCalls))
		for i, c := range m.ToolCalls {
			sc.rank[c.ID] = i
		}
		sc.groupAt = len(res.Messages)
	case model.RoleTool:
		i := len(res.Messages)
		for i > sc.groupAt && sc.rank[res.Messages[i-1].ToolCallID] > sc.rank[m.ToolCallID] {
			i--
		}
		res.Messages = slices.Insert(res.Messages, i, m)
	default:
		res.Messages = append(res.Messages, m)
	}
}

// closePending gives every pending call an interrupted result and returns those results.
func (sc *scan) closePending(where string, keep func([]byte) error) ([]model.Message, error) {
	if len(sc.pending) == 0 {
		return nil, nil
	}
	ids := make([]string, len(sc.pending))
	made := make([]model.Message, 0, len(sc.pending))
	for i, c := range sc.pending {
		ids[i] = c.ID
		m := model.Message{Role: model.RoleTool, Content: sc.interrupted(c), ToolCallID: c.ID, Name: c.Name}
		made = append(made, m)
		sc.add(m)
		if keep != nil {
			if err := keepRecord(toMessageRecord(m), keep); err != nil {
				return nil, err
			}
		}
	}
	sc.pending = sc.pending[:0]
	sc.warn("%s: tool call(s) %s had no saved result; marked as interrupted", where, strings.Join(ids, ", "))
	return made, nil
}

// keepRecord encodes a record the restore made up and hands it to keep.
func keepRecord(v any, keep func([]byte) error) error {
	line, err := encodeLine(v, nil)
	if err != nil {
		return err
	}
	if err := keep(line[:len(line)-1]); err != nil {
		return fmt.Errorf("copy session record: %w", err)
	}
	return nil
}

// readLine reads up to and including the next newline, appending to dst. It returns the
// line without its newline, the bytes consumed, whether a newline ended it, and whether it
// passed maxRecordBytes (then its content is dropped but the line is still consumed).
func readLine(br *bufio.Reader, dst []byte) (line []byte, n int64, ended, tooLong bool, err error) {
	for {
		chunk, rerr := br.ReadSlice('\n')
		n += int64(len(chunk))
		if !tooLong {
			if len(dst)+len(chunk) > maxRecordBytes {
				tooLong = true
				dst = dst[:0]
			} else {
				dst = append(dst, chunk...)
			}
		}
		if rerr == bufio.ErrBufferFull {
			continue
		}
		ended = rerr == nil
		if ended && !tooLong {
			dst = dst[:len(dst)-1]
		}
		return dst, n, ended, tooLong, rerr
	}
}
