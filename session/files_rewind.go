package session

// Rewinding the files the tools changed to what they held at a checkpoint, from the
// journal's before-images (files.go).

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kimi-run/kimi-run/internal/atomicfile"
	"github.com/kimi-run/kimi-run/internal/beneath"
	"github.com/kimi-run/kimi-run/internal/infile"
)

// FileRewind is what a rewind did, or would do, to one file.
type FileRewind struct {
	// Path is the file, absolute.
	Path string
	// Action is RestoredFile, DeletedFile, UnchangedFile or NotRestored.
	Action string
	// Why says why a file was not restored.
	Why string
	// Backup is where its content before the rewind is kept (a blob in the session
	// folder); empty when it had none (it did not exist) or nothing was replaced.
	Backup string
	// ChangedOutside says the file was changed by something other than the file tools
	// since they last wrote it (a command, a person): that change is undone too, and kept
	// in Backup.
	ChangedOutside bool
}

// The actions of a FileRewind.
const (
	RestoredFile  = "restored"  // its content before the checkpoint is back
	DeletedFile   = "deleted"   // it did not exist at the checkpoint, and is gone again
	UnchangedFile = "unchanged" // it already held what it held at the checkpoint
	NotRestored   = "not_restored"
)

// target is what one file held at a checkpoint, and what the tools last left in it.
type target struct {
	before fileRecord
	after  *fileRecord
}

// RewindFiles puts back every file the tools changed since checkpoint id: each gets the
// content it had before its first change at or after the checkpoint (or is removed, when
// it did not exist then). What it held before the rewind is kept as a blob first. canWrite
// refuses a path the run may not write (the sandbox's check); nil allows all. Call it
// before the conversation itself is reverted (Revert), so that a crash in between leaves a
// session that a retry rewinds the same way.
func (j *Journal) RewindFiles(ctx context.Context, id int, canWrite func(string) error) ([]FileRewind, error) {
	targets, order, err := j.targets(ctx, id)
	if err != nil {
		return nil, err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []FileRewind
	for _, path := range order {
		out = append(out, j.rewindOne(path, targets[path], id, canWrite))
	}
	return out, nil
}

// targets reads the journal: for each file the tools changed at or after checkpoint id
// (as the reverts since have renumbered them), its first before-image there and its last
// known content; order is the order of first change.
func (j *Journal) targets(ctx context.Context, id int) (map[string]*target, []string, error) {
	rf, err := infile.Open(ctx, filepath.Join(j.dir, journalName), infile.Session)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]*target{}, nil, nil // no tool has changed a file in this session
	}
	if err != nil {
		return nil, nil, fmt.Errorf("before-images: %w", err)
	}
	defer rf.Close()
	var befores []fileRecord
	last := map[string]fileRecord{}
	sc := bufio.NewScanner(rf)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec fileRecord
		if json.Unmarshal(sc.Bytes(), &rec) != nil {
			continue // a torn last line
		}
		switch rec.Kind {
		case recBefore:
			befores = append(befores, rec)
		case recAfter:
			last[rec.Path] = rec
		case recRewound:
			last[rec.Path] = fileRecord{Path: rec.Path, Blob: rec.Blob, Absent: rec.Absent, Lost: rec.Lost}
		case recRevert:
			// Checkpoints from rec's on were dropped: a change filed under one of them came
			// after the checkpoint before it, and before whatever takes their ids next.
			for i := range befores {
				if befores[i].Checkpoint >= rec.Checkpoint {
					befores[i].Checkpoint = rec.Checkpoint - 1
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("before-images: %w", err)
	}
	targets := map[string]*target{}
	var order []string
	for _, b := range befores {
		if b.Checkpoint < id || targets[b.Path] != nil {
			continue
		}
		targets[b.Path] = &target{before: b}
		order = append(order, b.Path)
	}
	for path, t := range targets {
		if a, ok := last[path]; ok {
			t.after = &a
		}
	}
	return targets, order, nil
}

// rewindOne puts one file back. The journal's lock is held.
func (j *Journal) rewindOne(path string, t *target, id int, canWrite func(string) error) FileRewind {
	out := FileRewind{Path: path, Action: NotRestored}
	if t.before.Lost != "" {
		out.Why = "no content was kept from before its change: " + t.before.Lost
		return out
	}
	var want []byte
	if !t.before.Absent && !validBlob(t.before.Blob) {
		out.Why = "its record names no kept content"
		return out
	}
	if !t.before.Absent {
		var err error
		// A blob is at most MaxBeforeImage; one that grew was not written by us.
		blob := filepath.Join(j.dir, blobsName, t.before.Blob)
		if want, err = infile.Read(context.Background(), blob, infile.Limit{Max: MaxBeforeImage, RegularOnly: true, Own: true}); err == nil && sha(want) != t.before.Blob {
			err = errors.New("its content no longer matches its name")
		}
		if err != nil {
			out.Why = "its kept content is gone: " + err.Error()
			return out
		}
	}
	now, _, nowAbsent, nowErr := j.readImage(path)
	if errors.Is(nowErr, beneath.ErrLink) {
		out.Why = nowErr.Error() // planted after the tools wrote it: not followed
		return out
	}
	nowBlob, nowLost := "", ""
	if nowErr != nil {
		nowLost = nowErr.Error()
	} else if !nowAbsent {
		nowBlob = sha(now)
	}
	if nowLost == "" && nowAbsent == t.before.Absent && nowBlob == t.before.Blob {
		out.Action = UnchangedFile
		return out
	}
	if t.after != nil && (t.after.Lost != "" || nowLost != "" || t.after.Absent != nowAbsent || t.after.Blob != nowBlob) {
		out.ChangedOutside = true
	}
	if canWrite != nil {
		if err := canWrite(path); err != nil {
			out.Why = err.Error()
			return out
		}
	}
	// What it holds now is kept first: nothing a rewind replaces is lost.
	rec := fileRecord{Kind: recRewound, Checkpoint: id, Path: path, Blob: t.before.Blob, Absent: t.before.Absent, Mode: t.before.Mode}
	if !nowAbsent {
		blob, _, _, lost := j.keep(path, now)
		if lost != "" {
			out.Why = "its current content could not be kept first: " + lost
			return out
		}
		rec.Backup, out.Backup = blob, filepath.Join(j.dir, blobsName, blob)
	} else {
		rec.BackupAbsent = true
	}
	if t.before.Absent {
		out.Action = DeletedFile
	} else {
		out.Action = RestoredFile
	}
	err := j.put(path, want, t.before)
	if err != nil {
		return FileRewind{Path: path, Action: NotRestored, Why: err.Error(), Backup: out.Backup, ChangedOutside: out.ChangedOutside}
	}
	j.append(rec, true)
	return out
}

// put gives path what it held before (want, or no file when before is Absent), below its
// root without following a link (beneath): a link planted on the way fails with ErrLink.
func (j *Journal) put(path string, want []byte, before fileRecord) error {
	root, rel := beneath.Split(path, j.roots)
	if before.Absent {
		dir, err := beneath.OpenDir(root, filepath.Dir(rel))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		defer dir.Close()
		if err := beneath.Remove(dir, filepath.Base(rel)); !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	if filepath.Dir(rel) == "." {
		// A root of its own (a path below none of the roots): made as it was made before.
		if err := os.MkdirAll(root, 0o755); err != nil {
			return err
		}
	}
	dir, err := beneath.MkdirAll(root, filepath.Dir(rel), 0o755)
	if err != nil {
		return err
	}
	defer dir.Close()
	return atomicfile.WriteIn(dir, filepath.Base(rel), want, fs.FileMode(before.Mode))
}
