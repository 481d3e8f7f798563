package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
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
		line, err := j.r.ReadBytes('\n')
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
