package filechanges

import (
	"bufio"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/kimi-run/kimi-run/internal/beneath"
)

// The tracker's state is kept in a dir of the session's folder (a temp dir without a
// session) as it is taken: a log of records, one a line, appended, and the git dirs of
// the snapshots. A run killed before its end leaves it there, and the run that continues
// its turn takes it up, so that its files_changed covers the whole turn. A run that ends
// removes it. The log is not synced: it outlives the process, not the machine.
//
// Every file of the state is opened, made and removed through beneath (no link followed
// below the root kimi-run holds, nor at the name), and read without waiting on a FIFO. git writes the index and objects by
// path, so a state that holds a link anywhere (one planted between a kill and the resume)
// is not taken up but removed, and the git data's place is the state's own, never the one
// the log names. What could still plant a link while git writes is a command running
// meanwhile: the commands of a sandboxed run that can write the state's dir get a temp
// dir for it instead (Config.Writable), and unconfined commands can write anywhere anyway.
const logName = "log.jsonl"

// record is one line of the state's log: the first opens it, an original (Path) is what a
// file tool's target held before, a snapshot (Repos) the state of the repositories before
// the first command.
type record struct {
	Turn     string            `json:"turn,omitempty"`
	Settings map[string]string `json:"settings,omitempty"`

	Seq     int    `json:"seq,omitempty"`
	Path    string `json:"path,omitempty"`
	Existed bool   `json:"existed,omitempty"`
	Big     bool   `json:"big,omitempty"`
	Content []byte `json:"content,omitempty"`

	Snapped bool     `json:"snapped,omitempty"`
	Repos   []*repo  `json:"repos,omitempty"`
	Unseen  []string `json:"unseen,omitempty"`
}

// state is the tracker's durable part.
type state struct {
	dir string // "" until a temp dir is made, without a session
	// durable: dir is the session's, and the log is kept; a temp dir holds only git's.
	durable bool
	open    record // the first record, written with the second
	f       *os.File
}

// load reads the log a killed run left in dir when its first record names turn; any other
// state there is removed. It returns the records after the first; linked reports a state
// removed because a link lay in it.
func (s *state) load(turn string) (recs []record, linked bool) {
	if s.dir == "" {
		return nil, false
	}
	f, err := beneath.Open(filepath.Join(s.dir, logName), os.O_RDONLY|syscall.O_NONBLOCK, 0) // a FIFO reads empty
	if err == nil && hasLink(s.dir) {
		f.Close()
		err = beneath.ErrLink
	}
	if err != nil {
		beneath.RemoveAllPath(s.dir)
		return nil, errors.Is(err, beneath.ErrLink)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var rec record
		if json.Unmarshal(sc.Bytes(), &rec) != nil {
			break // a line the kill cut short
		}
		recs = append(recs, rec)
	}
	if len(recs) == 0 || recs[0].Turn != turn || turn == "" {
		beneath.RemoveAllPath(s.dir)
		return nil, false
	}
	s.open = recs[0]
	return recs[1:], false
}

// mkdir makes the state's dir, a temp dir when it has none, and returns it.
func (s *state) mkdir() (string, error) {
	if s.dir == "" {
		d, err := os.MkdirTemp("", "kimi-run-changes-")
		if err != nil {
			return "", err
		}
		s.dir = d
	}
	d, err := beneath.Dir(s.dir, true, 0o700)
	if err != nil {
		return "", err
	}
	d.Close()
	return s.dir, nil
}

// hasLink reports whether a symbolic link lies in dir or below it (or dir cannot be read
// without following one).
func hasLink(dir string) bool {
	d, err := beneath.Dir(dir, false, 0)
	if err != nil {
		return !errors.Is(err, fs.ErrNotExist)
	}
	defer d.Close()
	return linkIn(d)
}

func linkIn(d *os.File) bool {
	entries, err := d.ReadDir(-1)
	if err != nil {
		return true
	}
	for _, e := range entries {
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			return true
		case e.IsDir():
			sub, err := beneath.OpenFile(d, e.Name(), os.O_RDONLY|syscall.O_NONBLOCK, 0)
			if err != nil {
				return true
			}
			found := linkIn(sub)
			sub.Close()
			if found {
				return true
			}
		}
	}
	return false
}

// add appends rec to the log, opening it with its first record at the first call. A
// failure loses only what a resumed run could have taken up.
func (s *state) add(rec record) {
	if !s.durable {
		return
	}
	if s.f == nil {
		dir, err := s.mkdir()
		if err != nil {
			return
		}
		f, err := beneath.Open(filepath.Join(dir, logName), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return
		}
		s.f = f
		if fi, err := f.Stat(); err == nil && fi.Size() == 0 {
			s.write(s.open)
		}
	}
	s.write(rec)
}

func (s *state) write(rec record) {
	if line, err := json.Marshal(rec); err == nil {
		_, _ = s.f.Write(append(line, '\n'))
	}
}

// remove deletes the state: the run has ended and listed its changes.
func (s *state) remove() {
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
	if s.dir != "" {
		beneath.RemoveAllPath(s.dir)
	}
}

// data is the place of the git index and objects of the state's i-th repository.
func (s *state) data(i int) string { return filepath.Join(s.dir, "git", strconv.Itoa(i)) }
