// Package infile is the one way kimi-run reads a file that comes from outside the run: a
// flag's file, the config and MCP files, agent files and their templates, skills, flows,
// AGENTS.md, sessions, cassettes, schemas, images, a stored login, the files the tools read,
// and stdin (ReadStdin). Every read is bounded in size (a cap that fits what the file is;
// more is refused, never cut) and in time (the caller's context ends it, whatever the file
// is).
//
// A regular file is read as it is, its size checked before the first byte. What is not a
// regular file either is refused at once (a Limit with RegularOnly: what kimi-run finds by
// itself, such as a session or a skill, is never a FIFO or a device) or is read under the
// context: a pipe from the shell's process substitution (--prompt-file <(...)) is a
// reasonable input, /dev/zero or a FIFO nobody writes to is not, and the cap and the
// context end those. Opening never blocks this thread: a FIFO is opened without waiting
// and then waits for a writer under the context, holding the pipe so that nothing a
// writer leaves in it is lost.
package infile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync/atomic"
	"time"
)

// Limit is what one kind of file may be.
type Limit struct {
	// Max is the most bytes the file may hold; reading more fails with a *TooLargeError.
	Max int64
	// RegularOnly refuses anything but a regular file, with a *NotRegularError.
	RegularOnly bool
	// Own is a file kimi-run keeps itself (a session's): it is opened as beneath.Open does,
	// no link followed at its name nor below a held root (beneath.ErrLink), so that a link
	// a command planted there leads no read elsewhere.
	Own bool
}

// The caps, one per kind of file; docs/unattended.md's "Bounded inputs" table lists them.
var (
	// Prompt is --prompt-file and the files of --system-prompt and --append-system-prompt:
	// as much as stdin may bring.
	Prompt = Limit{Max: 8 << 20}
	// Config is config.toml or --config-file, read while the command line is parsed
	// (its keys are flags' defaults), before the run's clock exists: a regular file only
	// (the text of a pipe goes in --config instead).
	Config = Limit{Max: 4 << 20, RegularOnly: true}
	// MCPConfig is mcp.json or --mcp-config-file.
	MCPConfig = Limit{Max: 4 << 20}
	// AgentFile covers an agent file, the files it extends and its prompt templates. They
	// name one another by paths relative to their directory, which a pipe has not.
	AgentFile = Limit{Max: 1 << 20, RegularOnly: true}
	// Flow is a flowchart, whose language its file name's extension says: a pipe has none.
	Flow = Limit{Max: 1 << 20, RegularOnly: true}
	// PluginFile is a plugin's plugin.json found in the plugins directory.
	PluginFile = Limit{Max: 1 << 20, RegularOnly: true}
	// Skill is a SKILL.md (or NAME.md) found in a skills directory.
	Skill = Limit{Max: 1 << 20, RegularOnly: true}
	// Schema is --json-schema's file and the files its $refs name.
	Schema = Limit{Max: 4 << 20}
	// Image is an --image file: providers refuse much smaller ones, but a clear error
	// here beats a 400 after the upload.
	Image = Limit{Max: 20 << 20}
	// Cassette is a --replay file, held in memory whole while the run replays it.
	Cassette = Limit{Max: 128 << 20}
	// Session is a session's context.jsonl: read record by record, its memory is the
	// conversation it restores.
	Session = Limit{Max: 256 << 20, RegularOnly: true, Own: true}
	// SessionMeta covers the small files kimi-run keeps beside the sessions (kimi-run.json,
	// last-session, the lock's owner).
	SessionMeta = Limit{Max: 1 << 20, RegularOnly: true, Own: true}
	// Login is Kimi's stored credentials and device id.
	Login = Limit{Max: 1 << 20, RegularOnly: true}
	// Certificate is a PEM file named by the environment (OTLP's CA).
	Certificate = Limit{Max: 1 << 20}
	// AgentsMD is AGENTS.md, of which only a budget is read (the caller's own cap).
	AgentsMD = Limit{Max: 1 << 30, RegularOnly: true}
	// ToolRead is a file a tool reads for the model; the tools bound what they take.
	ToolRead = Limit{Max: 1 << 40, RegularOnly: true}
)

// TooLargeError is a file that holds more than its Limit allows. Like the errors of
// package os, its message names the file; the caller says what the file is for.
type TooLargeError struct {
	Path string
	Max  int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %s", e.Path, Size(e.Max))
}

// NotRegularError is a file that is not a regular file where only one will do (a
// directory never does).
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	if e.Mode.IsDir() {
		return fmt.Sprintf("%s is a directory", e.Path)
	}
	return fmt.Sprintf("%s is not a regular file (%s)", e.Path, kind(e.Mode))
}

// Size writes a cap for a person: 8 MiB, 64 KiB.
func Size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return m.Type().String()
}

// Read returns the whole of the file at path, within l. It stops with ctx's cause when
// ctx ends first.
func Read(ctx context.Context, path string, l Limit) ([]byte, error) {
	f, err := Open(ctx, path, l)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := f.size
	if size <= 0 || size > l.Max {
		size = 0
	}
	buf := make([]byte, 0, size+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// File is a file opened by Open: reading it stops at its Limit and when the context it was
// opened with ends.
type File struct {
	f     *os.File
	path  string
	limit Limit
	size  int64 // a regular file's size when opened; -1 otherwise
	read  int64
	// stopped holds the context's cause once it ended; stop unregisters the watch.
	stopped atomic.Pointer[error]
	stop    func() bool
}

// Open opens the file at path for reading within l (see the package comment). The file
// must be closed. Reading it returns ctx's cause once ctx has ended.
func Open(ctx context.Context, path string, l Limit) (*File, error) {
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	f, err := openNonblocking(path, l.Own)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if info.Mode()&fs.ModeNamedPipe != 0 && !l.RegularOnly {
		// Opened without waiting, the FIFO reads as empty while it has no writer: wait for
		// one under ctx.
		if f, err = awaitWriter(ctx, f, path); err != nil {
			return nil, err
		}
		if info, err = f.Stat(); err != nil {
			f.Close()
			return nil, err
		}
	}
	if err := check(path, info, l); err != nil {
		f.Close()
		return nil, err
	}
	file := &File{f: f, path: path, limit: l, size: -1}
	if info.Mode().IsRegular() {
		file.size = info.Size()
	}
	file.stop = context.AfterFunc(ctx, func() {
		cause := context.Cause(ctx)
		file.stopped.Store(&cause)
		// Ends a read waiting on a pipe or a terminal (the runtime's poller); a regular
		// file's reads return by themselves and see stopped before the next one.
		_ = f.SetReadDeadline(time.Unix(1, 0))
	})
	return file, nil
}

// check applies l to what the opened file is.
func check(path string, info fs.FileInfo, l Limit) error {
	m := info.Mode()
	switch {
	case m.IsDir():
		return &NotRegularError{Path: path, Mode: m}
	case m.IsRegular():
		if info.Size() > l.Max {
			return &TooLargeError{Path: path, Max: l.Max}
		}
	case l.RegularOnly:
		return &NotRegularError{Path: path, Mode: m}
	}
	return nil
}

// Read reads from the file. Past the Limit it fails with a *TooLargeError; once the
// context has ended, with its cause.
func (f *File) Read(p []byte) (int, error) {
	if c := f.stopped.Load(); c != nil {
		return 0, *c
	}
	if room := f.limit.Max + 1 - f.read; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := f.f.Read(p)
	f.read += int64(n)
	if f.read > f.limit.Max {
		return 0, &TooLargeError{Path: f.path, Max: f.limit.Max}
	}
	if err != nil && err != io.EOF {
		if c := f.stopped.Load(); c != nil {
			return n, *c
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			// Only the context sets a deadline; its cause arrives just after.
			return n, context.Canceled
		}
	}
	return n, err
}

// Stat returns the open file's information.
func (f *File) Stat() (fs.FileInfo, error) { return f.f.Stat() }

// Close closes the file.
func (f *File) Close() error {
	f.stop()
	return f.f.Close()
}
