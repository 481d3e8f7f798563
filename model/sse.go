package model

import (
	"bytes"
	"encoding/json"
	"io"
)

// sseFilter passes only the data lines of an event stream on to go-openai, and looks at
// every line for an error object (`data: {"error":…}`, or a bare JSON object) that
// go-openai reports without its code when it can read it at all.
//
// Everything else (comments such as `: keep-alive` or `: OPENROUTER PROCESSING`, blank
// lines, `event:`/`id:`/`retry:` fields) is dropped as it arrives. go-openai keeps every
// non-data line in an error buffer until the next data line and counts blank lines, so a
// server sending comments for minutes grew memory without bound; here memory stays at one
// read buffer plus at most maxErrorBody of the current line, whatever the server sends.
// Dropped lines do not reset the stream's idle timer: only data does (docs/design.md).
type sseFilter struct {
	body io.ReadCloser
	x    *exchange

	out  []byte // data-line bytes read but not yet handed out
	scan []byte // read buffer
	// The current line: decided says whether it is known to be a data line (keep) or
	// not; until then its first bytes wait in head.
	head    []byte
	decided bool
	keep    bool
	comment bool
	line    []byte // the line's first maxErrorBody bytes, for the error check
	// other collects the first maxErrorBody bytes of lines that are neither data nor
	// comments: a JSON error document spread over several lines (a proxy that answers
	// 200 with a pretty-printed error) is read from it at the end.
	other []byte
	long  bool  // the line outgrew maxErrorBody: not an error document
	found bool  // an error document was recorded
	err   error // the body's read error, handed out once out is empty
	// kept counts the current data line's bytes; past the reply's lineMax the stream is
	// cut (cut), before go-openai, which holds a line whole, holds more of it.
	kept int64
	cut  bool
	// begun: the body's first byte other than white space was seen. A body that begins
	// with '{' or '[' is a JSON document, not an event stream (doc): a server that ignored
	// stream:true, or an error document. It is kept whole (up to the line cap) and read
	// at its end: a single JSON value goes to the exchange as the plain reply (or as the
	// stream's error document); anything else is filtered as a stream after all.
	begun bool
	doc   bool
	whole []byte
}

func (f *sseFilter) Close() error { return f.body.Close() }

func (f *sseFilter) Read(p []byte) (int, error) {
	for len(f.out) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		if f.scan == nil {
			f.scan = make([]byte, 32<<10)
		}
		n, err := f.body.Read(f.scan)
		f.begin(f.scan[:n])
		if f.doc {
			f.whole = append(f.whole, f.scan[:n]...)
			f.cut = f.x != nil && f.x.size != nil && int64(len(f.whole)) > f.x.size.lineMax()
			if err != nil && !f.cut {
				f.endDoc()
			}
		} else {
			f.feed(f.scan[:n])
		}
		if f.cut {
			f.out, f.err = nil, &ReplyTooLargeError{Max: f.x.size.max}
			return 0, f.err
		}
		if err != nil {
			f.endLine() // a last line without a newline still counts
			f.checkOther()
			f.err = err
		}
	}
	n := copy(p, f.out)
	f.out = f.out[n:]
	if len(f.out) == 0 {
		f.out = f.out[:0:0] // let a large burst's buffer go
	}
	return n, nil
}

// begin looks for the body's first byte other than white space, which says whether the
// body is an event stream or a JSON document.
func (f *sseFilter) begin(p []byte) {
	if f.begun {
		return
	}
	if t := bytes.TrimLeft(p, " \t\r\n\ufeff"); len(t) > 0 {
		f.begun = true
		f.doc = t[0] == '{' || t[0] == '['
	}
}

// endDoc reads a body that began as a JSON document, once it has all arrived.
func (f *sseFilter) endDoc() {
	doc := bytes.TrimSpace(f.whole)
	f.doc = false
	if !json.Valid(doc) {
		// Not one JSON value (bare JSON lines, say): filter it as a stream after all.
		f.feed(f.whole)
		f.whole = nil
		return
	}
	if e := streamErrorLine(doc); e != nil {
		f.record(e)
	} else {
		f.x.mu.Lock()
		f.x.plain = doc
		f.x.mu.Unlock()
	}
	f.whole = nil
}

// feed sorts bytes into kept data lines and dropped others, line by line.
func (f *sseFilter) feed(p []byte) {
	for len(p) > 0 && !f.cut {
		i := bytes.IndexByte(p, '\n')
		part := p
		if i >= 0 {
			part = p[:i+1]
		}
		f.take(part)
		if i < 0 {
			return
		}
		f.endLine()
		p = p[i+1:]
	}
}

// take adds part of the current line (with its newline, when it ends here).
func (f *sseFilter) take(part []byte) {
	if !f.long {
		if len(f.line)+len(part) > maxErrorBody {
			f.long, f.line = true, f.line[:0]
		} else {
			f.line = append(f.line, part...)
		}
	}
	if f.decided {
		if f.keep {
			f.out = append(f.out, part...)
			f.count(len(part))
		}
		return
	}
	f.head = append(f.head, part...)
	t := bytes.TrimLeft(f.head, " \t\r")
	switch {
	case len(t) > 0 && t[0] == ':':
		f.decided, f.keep, f.comment = true, false, true
	case len(t) >= len("data:") || bytes.IndexByte(t, '\n') >= 0:
		f.decided, f.keep = true, bytes.HasPrefix(t, []byte("data:"))
	default:
		return // too short to tell yet
	}
	if f.keep {
		f.out = append(f.out, f.head...)
		f.count(len(f.head))
	}
	f.head = f.head[:0]
}

// count adds n bytes to the current data line and cuts the stream past the line cap.
func (f *sseFilter) count(n int) {
	f.kept += int64(n)
	if f.x != nil && f.x.size != nil && f.kept > f.x.size.lineMax() {
		f.cut = true
	}
}

// endLine ends the current line: it is checked for an error document, and the state is
// reset for the next one.
func (f *sseFilter) endLine() {
	if !f.decided && len(f.head) > 0 {
		t := bytes.TrimSpace(f.head)
		if bytes.HasPrefix(t, []byte("data:")) {
			f.out = append(f.out, f.head...)
		}
	}
	if f.keep && !f.long && isDone(f.line) {
		f.x.mu.Lock()
		f.x.done = true
		f.x.mu.Unlock()
	}
	if !f.found && !f.long {
		f.record(streamErrorLine(f.line))
		if !f.keep && !f.comment && len(f.other)+len(f.line) <= maxErrorBody {
			f.other = append(f.other, f.line...)
		}
	}
	f.line, f.long, f.kept = f.line[:0], false, 0
	f.head, f.decided, f.keep, f.comment = f.head[:0], false, false, false
}

// checkOther looks for an error document in the non-data lines taken together.
func (f *sseFilter) checkOther() {
	if !f.found && len(f.other) > 0 {
		f.record(streamErrorLine(f.other))
	}
	f.other = nil
}

// record keeps the first error document found.
func (f *sseFilter) record(doc []byte) {
	if doc == nil || f.found {
		return
	}
	f.x.mu.Lock()
	f.x.streamErr = append([]byte(nil), doc...)
	f.x.mu.Unlock()
	f.found = true
}

// isDone reports whether a data line is the end mark `data: [DONE]`.
func isDone(line []byte) bool {
	rest, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("data:"))
	return ok && bytes.Equal(bytes.TrimSpace(rest), []byte("[DONE]"))
}
