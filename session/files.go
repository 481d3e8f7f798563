package session

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/kimi-run/kimi-run/internal/atomicfile"
	"github.com/kimi-run/kimi-run/internal/beneath"
	"github.com/kimi-run/kimi-run/internal/infile"
)

// The file tools' before-images (issue 32 #4). Before WriteFile or StrReplaceFile first
// changes a file after a checkpoint, the file's content as it is then (or the fact that it
// did not exist) is kept in the session's folder, so that a rewind to that checkpoint can
// put it back. They live in files/: journal.jsonl, one record a line, appended, and
// blobs/, each content once, named by its SHA-256. A before-image is written and synced
// before the tool changes the file, so a crash at any moment leaves no change without the
// image that undoes it. What commands change is not seen here.

// The folder, the journal and the blobs' folder, in a session's folder.
const (
	FilesDir    = "files"
	journalName = "journal.jsonl"
	blobsName   = "blobs"
)

// Caps of the before-images: one file's, and all of a session's together. A file past
// either is noted as not kept, and a rewind says it cannot put it back.
const (
	MaxBeforeImage  int64 = 8 << 20
	MaxBeforeImages int64 = 256 << 20
)

// The kinds of journal record.
const (
	recBefore  = "before"  // a file's content before its first change after checkpoint Checkpoint
	recAfter   = "after"   // a file's content once a tool changed it
	recRevert  = "revert"  // the conversation went back to just before checkpoint Checkpoint
	recRewound = "rewound" // a rewind put a file back (Blob/Absent) and kept what it replaced (Backup)
)

// fileRecord is one line of the journal.
type fileRecord struct {
	Kind       string `json:"k"`
	Checkpoint int    `json:"cp"`
	Path       string `json:"path,omitempty"`
	// Blob names the content (its SHA-256), Absent says there was no file, Lost why no
	// content could be kept. Mode is the file's permissions.
	Blob   string `json:"blob,omitempty"`
	Absent bool   `json:"absent,omitempty"`
	Lost   string `json:"lost,omitempty"`
	Mode   uint32 `json:"mode,omitempty"`
	// Backup and BackupAbsent are, for a rewound file, what it held before the rewind.
	Backup       string `json:"backup,omitempty"`
	BackupAbsent bool   `json:"backup_absent,omitempty"`
}

// Journal keeps the before-images of a session's files. Its methods are safe for
// concurrent use (tool calls run in parallel).
type Journal struct {
	dir string
	// roots are the directories the files lie below (the work dir, the --add-dir dirs):
	// below one, a rewind and a before-image follow no link (beneath).
	roots []string
	// checkpoint is the session's current checkpoint: changes are filed under it.
	checkpoint func() int
	// secret reports content that holds one of the run's credentials: such content is
	// never written to the session, so the file cannot be put back.
	secret func(string) bool

	mu sync.Mutex
	// f is the journal's file and blobs its blobs' folder, opened at the first record
	// (open); nil before, and once closed.
	f      *os.File
	blobs  *os.File
	closed bool
	have   map[string]bool // blobs present
	kept   int64           // their bytes
	// seen holds the files that have a before-image under the current checkpoint.
	seen   map[string]int
	failed bool // a write failed: reported once, by Err
	err    error
}

// KeepFiles starts keeping the before-images of the files the tools change, in the
// session's folder, filed under the session's current checkpoint; secret reports content
// that must not be written to the session. A revert of the session (Revert) is noted in it.
// Below roots (absolute) no link is followed when a file is read or rewound: a link there
// was planted after the tools wrote (they record paths with links resolved), by a command.
func (s *File) KeepFiles(secret func(string) bool, roots ...string) (*Journal, error) {
	j, err := openJournal(filepath.Join(filepath.Dir(s.path), FilesDir), s.current, secret)
	if err != nil {
		return nil, err
	}
	j.roots = roots
	s.mu.Lock()
	s.journal = j
	s.mu.Unlock()
	return j, nil
}

// current is the id of the last checkpoint taken, -1 before the first.
func (s *File) current() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.next - 1
}

func openJournal(dir string, checkpoint func() int, secret func(string) bool) (*Journal, error) {
	return &Journal{dir: dir, checkpoint: checkpoint, secret: secret, have: map[string]bool{}, seen: map[string]int{}}, nil
}

// open makes the journal's folders and opens its file, and counts the blobs an earlier run
// of the session kept, before the first record: a run whose tools change no file makes
// no files/ folder, and a run's set-up does not wait for one (issue 31). The journal's lock
// is held.
func (j *Journal) open() error {
	if j.f != nil {
		return nil
	}
	if j.closed {
		return ErrClosed
	}
	// Below the session's folder no link is followed (beneath): one planted there (a
	// session folder inside the work dir) would lead the journal and the blobs elsewhere.
	blobs, err := beneath.MkdirAll(filepath.Dir(j.dir), filepath.Join(filepath.Base(j.dir), blobsName), 0o700)
	if err != nil {
		return fmt.Errorf("before-images: %w", err)
	}
	dir, err := beneath.OpenDir(filepath.Dir(j.dir), filepath.Base(j.dir))
	if err == nil {
		j.f, err = beneath.OpenFile(dir, journalName, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		dir.Close()
	}
	if err != nil {
		blobs.Close()
		return fmt.Errorf("before-images: %w", err)
	}
	j.blobs = blobs
	entries, _ := blobs.ReadDir(-1)
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
			j.have[e.Name()] = true
			j.kept += info.Size()
		}
	}
	return nil
}

// Close closes the journal.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.closed = true
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.blobs.Close()
	j.f, j.blobs = nil, nil
	return err
}

// Err is the first failure to keep a before-image, once; nil otherwise.
func (j *Journal) Err() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	err := j.err
	j.err = nil
	return err
}

// Before keeps path's content (absolute, links resolved) as it is now, unless it was kept
// under the current checkpoint already. It returns once the content and its record are on
// stable storage. A content it cannot keep is recorded as lost, with why.
func (j *Journal) Before(path string) {
	cp := j.checkpoint() // before j.mu: File.Revert holds the session's lock, then ours
	j.mu.Lock()
	defer j.mu.Unlock()
	if at, ok := j.seen[path]; ok && at == cp {
		return
	}
	if err := j.open(); err != nil {
		j.fail(err)
		return
	}
	rec := fileRecord{Kind: recBefore, Checkpoint: cp, Path: path}
	rec.Blob, rec.Absent, rec.Mode, rec.Lost = j.keep(path, nil)
	if err := j.append(rec, true); err != nil {
		return
	}
	j.seen[path] = cp
}

// After notes what a tool left in path, so that a rewind can tell a file something else
// changed since.
func (j *Journal) After(path string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	rec := fileRecord{Kind: recAfter, Checkpoint: -1, Path: path}
	rec.Blob, rec.Absent, rec.Lost = j.hashOf(path)
	j.append(rec, false)
}

// reverted notes that the session went back to just before checkpoint id: what was filed
// under it or later now counts as done before it.
func (j *Journal) reverted(id int) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	clear(j.seen)
	return j.append(fileRecord{Kind: recRevert, Checkpoint: id}, true)
}

// append writes one record, synced when asked. The journal's lock is held.
func (j *Journal) append(rec fileRecord, sync bool) error {
	line, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if err := j.open(); err != nil {
		if !errors.Is(err, ErrClosed) {
			j.fail(err)
		}
		return err
	}
	_, err = j.f.Write(append(line, '\n'))
	if err == nil && sync {
		err = j.f.Sync()
	}
	if err != nil {
		j.fail(fmt.Errorf("before-images: %w", err))
	}
	return err
}

func (j *Journal) fail(err error) {
	if !j.failed {
		j.failed, j.err = true, err
	}
}

// keep stores path's content as a blob (synced) and names it; absent when there is no
// file, lost when it cannot be kept. data, when not nil, is the content read already. The
// journal's lock is held.
func (j *Journal) keep(path string, data []byte) (blob string, absent bool, mode uint32, lost string) {
	if data == nil {
		var err error
		data, mode, absent, err = j.readImage(path)
		if err != nil {
			lost = err.Error()
		}
	}
	if absent || lost != "" {
		return "", absent, 0, lost
	}
	if err := j.open(); err != nil {
		return "", false, 0, "it could not be written: " + err.Error()
	}
	if j.secret != nil && j.secret(string(data)) {
		return "", false, 0, "it holds one of the run's credentials, which are never written to the session"
	}
	sum := sha(data)
	if j.have[sum] {
		return sum, false, mode, ""
	}
	if j.kept+int64(len(data)) > MaxBeforeImages {
		return "", false, 0, fmt.Sprintf("the session's before-images reached %s", infile.Size(MaxBeforeImages))
	}
	if err := atomicfile.WriteIn(j.blobs, sum, data, 0o600); err != nil {
		j.fail(fmt.Errorf("before-images: %w", err))
		return "", false, 0, "it could not be written: " + err.Error()
	}
	j.have[sum] = true
	j.kept += int64(len(data))
	return sum, false, mode, ""
}

// readImage reads a file for a before-image: its content and permissions, or that it is
// absent, or why it cannot be kept. No link below its root is followed (beneath.ErrLink),
// nor one at its name ("not a regular file").
func (j *Journal) readImage(path string) (data []byte, mode uint32, absent bool, err error) {
	root, rel := beneath.Split(path, j.roots)
	dir, err := beneath.OpenDir(root, filepath.Dir(rel))
	if err == nil {
		defer dir.Close()
		var f *os.File
		if f, err = beneath.OpenFile(dir, filepath.Base(rel), os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			defer f.Close()
			data, mode, err = readRegular(f)
		}
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, 0, true, nil
	case errors.Is(err, beneath.ErrLink) && filepath.Dir(rel) == ".":
		return nil, 0, false, errors.New("it is not a regular file (a symbolic link)")
	case errors.Is(err, beneath.ErrLink):
		return nil, 0, false, fmt.Errorf("%w below %s, and is not followed", beneath.ErrLink, root)
	}
	return data, mode, false, err
}

// readRegular reads an open file for a before-image.
func readRegular(f *os.File) ([]byte, uint32, error) {
	info, err := f.Stat()
	switch {
	case err != nil:
		return nil, 0, err
	case !info.Mode().IsRegular():
		return nil, 0, errors.New("it is not a regular file")
	case info.Size() > MaxBeforeImage:
		return nil, 0, fmt.Errorf("it is larger than %s", infile.Size(MaxBeforeImage))
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxBeforeImage+1))
	if err == nil && int64(len(data)) > MaxBeforeImage {
		err = fmt.Errorf("it is larger than %s", infile.Size(MaxBeforeImage))
	}
	return data, uint32(info.Mode().Perm()), err
}

// hashOf names path's content without keeping it.
func (j *Journal) hashOf(path string) (blob string, absent bool, lost string) {
	data, _, absent, err := j.readImage(path)
	if err != nil {
		return "", false, err.Error()
	}
	if absent {
		return "", true, ""
	}
	return sha(data), false, ""
}

// validBlob accepts the name sha gives: 64 lower-case hex digits, nothing a path could use.
func validBlob(name string) bool {
	if len(name) != 64 {
		return false
	}
	for _, c := range name {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func sha(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
