package background

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/beneath"
	"github.com/kimi-run/kimi-run/internal/scrub"
)

// maxEventChunk is the most one task_output event carries of a line that does not end.
const maxEventChunk = 4 << 10

// lineEvents turns a task's output, as it is kept in its file, into task_output events of
// whole lines, until the task's events have carried EventOutputLimit bytes. The output is
// scrubbed as a stream before it is cut into events (scrub.Writer): a secret, or a form of
// one, that the pipe's reads or an event's end would cut in two is held back until it is
// whole. Output that comes before the task_started event waits for it.
type lineEvents struct {
	t *task

	mu    sync.Mutex
	clean *scrub.Writer // writes to buf (Write)
	buf   []byte
	sent  int
	open  bool // task_started has been written
	ended bool // the limit was reached, and said
}

func newLineEvents(t *task) *lineEvents {
	l := &lineEvents{t: t}
	l.clean = scrub.NewWriter(l, t.m.Secrets)
	return l
}

// write takes output as the file keeps it (launch's copy goroutine).
func (l *lineEvents) write(p []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended {
		return
	}
	l.clean.Write(p)
	l.send(false)
}

// Write takes the scrubbed output from clean; callers hold l.mu.
func (l *lineEvents) Write(p []byte) (int, error) {
	l.buf = append(l.buf, p...)
	return len(p), nil
}

// begin lets the events flow, once task_started is written.
func (l *lineEvents) begin() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open = true
	l.send(false)
}

// flush sends what is left, a last line without its end included, once the output ended.
func (l *lineEvents) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open = true
	l.clean.Close()
	l.send(true)
}

// send writes the complete lines held (all of it when final); callers hold l.mu.
func (l *lineEvents) send(final bool) {
	if !l.open || l.ended {
		return
	}
	for len(l.buf) > 0 {
		n := bytes.LastIndexByte(l.buf, '\n') + 1
		switch {
		case final:
			n = len(l.buf)
		case n == 0 && len(l.buf) >= maxEventChunk:
			n = runeCut(l.buf, maxEventChunk)
		case n == 0:
			return
		}
		if room := EventOutputLimit - l.sent; n > room {
			n = runeCut(l.buf, room)
		}
		if n > 0 {
			l.sent += n
			l.t.m.emit(event.TaskOutput{TaskID: l.t.id, Text: string(l.buf[:n])})
			l.buf = l.buf[n:]
		}
		if l.sent >= EventOutputLimit-utf8.UTFMax && len(l.buf) > 0 {
			l.ended = true
			l.buf = nil
			l.t.m.emit(event.TaskOutput{TaskID: l.t.id, Truncated: true})
			return
		}
	}
}

// runeCut is the length of the longest start of p no longer than n that does not end
// inside a UTF-8 sequence.
func runeCut(p []byte, n int) int {
	if n >= len(p) {
		return len(p)
	}
	for i := n; i > 0 && i > n-utf8.UTFMax; i-- {
		if utf8.RuneStart(p[i]) {
			return i
		}
	}
	return n
}

// readEnd reads at most n bytes from the end of the file at path; size is the file's size.
// A cut at the start drops an incomplete UTF-8 sequence. A link at the path, or below the
// session dir, is not followed: a command may have planted it.
func readEnd(path string, n int) (text []byte, size int64, err error) {
	f, err := beneath.Open(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	size = fi.Size()
	from := max(size-int64(n), 0)
	buf := make([]byte, size-from)
	k, _ := io.ReadFull(io.NewSectionReader(f, from, size-from), buf)
	buf = buf[:k]
	if from > 0 {
		for i := 0; i < len(buf) && i < utf8.UTFMax && !utf8.RuneStart(buf[i]); i++ {
			buf = buf[1:]
		}
	}
	return buf, size, nil
}

// readTail is the last lines of the file at path, at most lines lines and chars characters.
func readTail(path string, lines, chars int) string {
	b, _, _ := readEnd(path, chars*utf8.UTFMax)
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return ""
	}
	parts := strings.Split(s, "\n")
	if len(parts) > lines {
		parts = parts[len(parts)-lines:]
	}
	s = strings.Join(parts, "\n")
	if r := []rune(s); len(r) > chars {
		s = string(r[len(r)-chars:])
	}
	return s
}

// Preview is the end of a task's output as TaskOutput shows it.
type Preview struct {
	// Text is the last bytes of the output (at most Config.PreviewBytes), scrubbed.
	Text string
	// Size is the output file's size; Truncated says Text is not all of it.
	Size      int64
	Truncated bool
}

// Preview reads the end of t's output.
func (m *Manager) Preview(t Task) Preview {
	n := m.Config.PreviewBytes
	if n <= 0 {
		n = DefaultPreviewBytes
	}
	b, size, err := readEnd(t.OutputPath, n)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Preview{Text: "(its output file cannot be read: " + err.Error() + ")"}
	}
	text := strings.TrimRight(strings.ToValidUTF8(string(b), "\uFFFD"), "\n")
	return Preview{Text: m.scrub(text), Size: size, Truncated: int64(len(b)) < size}
}
