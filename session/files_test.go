package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// journalled is a new session with its before-images kept, and a work dir.
func journalled(t *testing.T, secret func(string) bool) (*File, *Journal, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := Create(filepath.Join(dir, "s", ContextFile))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	j, err := s.KeepFiles(secret)
	if err != nil {
		t.Fatal(err)
	}
	return s, j, filepath.Join(dir, "work")
}

// change writes content to path the way a file tool does: Before, the write, After.
func change(t *testing.T, j *Journal, path, content string) {
	t.Helper()
	j.Before(path)
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	j.After(path)
}

func checkpoint(t *testing.T, s *File) {
	t.Helper()
	if _, err := s.Checkpoint(); err != nil {
		t.Fatal(err)
	}
}

func content(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "<none>"
	}
	return string(b)
}

// TestRewindFilesAcrossReverts: checkpoint ids are reused after a revert (a D-Mail, a
// compaction, a rewind), and what was filed under the dropped ones counts as done before
// the checkpoint the session went back to: a rewind to the reused id puts back what the
// file held at the new checkpoint, not at the old one of that id.
func TestRewindFilesAcrossReverts(t *testing.T) {
	s, j, work := journalled(t, nil)
	a := filepath.Join(work, "a.txt")
	checkpoint(t, s) // 0
	change(t, j, a, "one")
	checkpoint(t, s) // 1
	change(t, j, a, "two")
	change(t, j, a, "two and a half") // the same checkpoint: its first before-image stays
	checkpoint(t, s)                  // 2
	if _, err := s.Revert(1); err != nil {
		t.Fatal(err)
	}
	checkpoint(t, s) // 1 again, after "two and a half"
	change(t, j, a, "three")

	got, err := j.RewindFiles(context.Background(), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Action != RestoredFile || content(a) != "two and a half" {
		t.Fatalf("rewind to the new checkpoint 1: %+v, a.txt %q; want it to hold what it held at that checkpoint", got, content(a))
	}
	if b := content(got[0].Backup); b != "three" {
		t.Errorf("backup holds %q, want what the rewind replaced", b)
	}
	if got, _ := j.RewindFiles(context.Background(), 0, nil); len(got) != 1 || got[0].Action != DeletedFile || content(a) != "<none>" {
		t.Errorf("rewind to 0: %+v, a.txt %q; want it deleted (it did not exist then)", got, content(a))
	}
	// A compaction (a revert to 0) leaves nothing from before it to rewind to.
	change(t, j, a, "four")
	if _, err := s.Revert(0); err != nil {
		t.Fatal(err)
	}
	checkpoint(t, s)
	if got, _ := j.RewindFiles(context.Background(), 0, nil); len(got) != 0 {
		t.Errorf("after a revert to 0 the rewind to 0 touched %+v", got)
	}
}

// TestBeforeImagesAreBounded: a file larger than MaxBeforeImage, one holding a credential
// and one that is not a regular file get no before-image; the rewind says why it cannot
// put each back, and leaves them as they are.
func TestBeforeImagesAreBounded(t *testing.T) {
	s, j, work := journalled(t, func(c string) bool { return strings.Contains(c, "sk-secret") })
	big, cred := filepath.Join(work, "big.bin"), filepath.Join(work, ".env")
	os.MkdirAll(work, 0o755)
	os.WriteFile(big, make([]byte, MaxBeforeImage+1), 0o644)
	os.WriteFile(cred, []byte("KEY=sk-secret\n"), 0o600)
	checkpoint(t, s)
	change(t, j, big, "small now")
	change(t, j, cred, "KEY=other\n")
	got, err := j.RewindFiles(context.Background(), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	why := map[string]string{}
	for _, f := range got {
		if f.Action != NotRestored {
			t.Errorf("%s: %s, want not_restored", f.Path, f.Action)
		}
		why[filepath.Base(f.Path)] = f.Why
	}
	if !strings.Contains(why["big.bin"], "larger than 8 MiB") || !strings.Contains(why[".env"], "credentials") {
		t.Errorf("reasons: %q", why)
	}
	if content(big) != "small now" || content(cred) != "KEY=other\n" {
		t.Errorf("files changed by a rewind that could not restore them")
	}
	blobs, _ := os.ReadDir(filepath.Join(filepath.Dir(s.Path()), FilesDir, blobsName))
	for _, b := range blobs {
		if data, _ := os.ReadFile(filepath.Join(filepath.Dir(s.Path()), FilesDir, blobsName, b.Name())); strings.Contains(string(data), "sk-secret") {
			t.Errorf("a blob holds the credential")
		}
	}
}

// TestRewindRefusedWrite: a path the sandbox refuses is not written, and says why.
func TestRewindRefusedWrite(t *testing.T) {
	s, j, work := journalled(t, nil)
	a := filepath.Join(work, "a.txt")
	checkpoint(t, s)
	change(t, j, a, "one")
	got, _ := j.RewindFiles(context.Background(), 0, func(string) error { return os.ErrPermission })
	if len(got) != 1 || got[0].Action != NotRestored || content(a) != "one" {
		t.Errorf("%+v, a.txt %q", got, content(a))
	}
}

// BenchmarkBeforeImage is what a file tool's first change of a file under a checkpoint
// costs for --rewind-files: read the file, write and sync its blob, append and sync the
// record (a new checkpoint each time, so each call keeps an image), against a change of the
// same file again under the same checkpoint (nothing kept).
func BenchmarkBeforeImage(b *testing.B) {
	for _, size := range []int{4 << 10, 256 << 10} {
		b.Run(fmt.Sprintf("first change %dKiB", size>>10), func(b *testing.B) {
			s, j, work := journalledB(b)
			path := filepath.Join(work, "f.go")
			os.MkdirAll(work, 0o755)
			data := make([]byte, size)
			b.SetBytes(int64(size))
			for i := 0; b.Loop(); i++ {
				data[0] = byte(i) // a new content, a new blob
				os.WriteFile(path, data, 0o644)
				s.Checkpoint()
				j.Before(path)
			}
		})
	}
	b.Run("same checkpoint again", func(b *testing.B) {
		s, j, work := journalledB(b)
		path := filepath.Join(work, "f.go")
		os.MkdirAll(work, 0o755)
		os.WriteFile(path, make([]byte, 4<<10), 0o644)
		s.Checkpoint()
		j.Before(path)
		for b.Loop() {
			j.Before(path)
		}
	})
}

func journalledB(b *testing.B) (*File, *Journal, string) {
	dir := b.TempDir()
	s, err := Create(filepath.Join(dir, "s", ContextFile))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	j, err := s.KeepFiles(nil)
	if err != nil {
		b.Fatal(err)
	}
	return s, j, filepath.Join(dir, "work")
}

// The before-images' folder is made at the first change, not when the session starts
// keeping them: a run whose tools change no file leaves none and does not wait for one
// before its first request (issue 31). A rewind of such a session puts nothing back, and
// a session reopened later still finds the blobs an earlier run kept (a content kept
// twice is one blob).
func TestJournalMadeAtFirstChange(t *testing.T) {
	s, j, work := journalled(t, nil)
	files := filepath.Join(filepath.Dir(s.Path()), FilesDir)
	checkpoint(t, s)
	if _, err := os.Stat(files); !os.IsNotExist(err) {
		t.Fatalf("%s exists before any change (%v)", files, err)
	}
	if got, err := j.RewindFiles(context.Background(), 0, nil); err != nil || len(got) != 0 {
		t.Fatalf("rewind of a session without changes: %v, %v", got, err)
	}
	a := filepath.Join(work, "a.txt")
	os.MkdirAll(work, 0o755)
	os.WriteFile(a, []byte("first"), 0o644)
	change(t, j, a, "second")
	if _, err := os.Stat(filepath.Join(files, journalName)); err != nil {
		t.Fatalf("no journal after a change: %v", err)
	}
	j.Close()

	again, err := s.KeepFiles(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	checkpoint(t, s)
	os.WriteFile(a, []byte("first"), 0o644)
	change(t, again, a, "third")
	blobs, _ := os.ReadDir(filepath.Join(files, blobsName))
	if len(blobs) != 1 {
		t.Errorf("%d blobs for one content kept twice, want 1", len(blobs))
	}
	if err := again.Err(); err != nil {
		t.Error(err)
	}
}
