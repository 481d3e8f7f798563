package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// jsonLines passes on the lines of a stdio server's stdout that are JSON, and skips the
// others: a banner or a log line some servers print before their handshake (the official
// TypeScript client skips them too). It counts what it skipped and keeps the first.
type jsonLines struct {
	c       io.Closer
	r       *bufio.Reader
	pending []byte

	mu      sync.Mutex
	skipped int
	first   string
}

func newJSONLines(r io.ReadCloser) *jsonLines { return &jsonLines{c: r, r: bufio.NewReader(r)} }

// Close closes the server's stdout.
func (j *jsonLines) Close() error { return j.c.Close() }

func (j *jsonLines) Read(p []byte) (int, error) {
	for len(j.pending) == 0 {
		line, err := j.readLine()
		if t := bytes.TrimSpace(line); len(t) > 0 && !json.Valid(t) {
			j.skip(t)
		} else {
			j.pending = line
		}
		if err != nil && len(j.pending) == 0 {
			return 0, err
		}
		if err != nil {
			break // the last line, without its newline: passed on, then the error
		}
	}
	n := copy(p, j.pending)
	j.pending = j.pending[n:]
	return n, nil
}

// maxLine bounds one line of a server's stdout, as the SDK bounds a message (16 MiB): a
// server that floods it without a newline fails instead of filling memory.
const maxLine = 16 << 20

// readLine reads up to and with the next newline, or fails past maxLine.
func (j *jsonLines) readLine() ([]byte, error) {
	var line []byte
	for {
		frag, err := j.r.ReadSlice('\n')
		if len(line)+len(frag) > maxLine {
			return nil, fmt.Errorf("a line of more than %d MiB on stdout", maxLine>>20)
		}
		line = append(line, frag...)
		if err != bufio.ErrBufferFull {
			return line, err
		}
	}
}

func (j *jsonLines) skip(line []byte) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.skipped == 0 {
		j.first = string(line[:min(len(line), 200)])
	}
	j.skipped++
}

// report is how many lines were skipped, and the first of them.
func (j *jsonLines) report() (int, string) {
	if j == nil {
		return 0, ""
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.skipped, j.first
}
