//go:build unix

package tools

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// ReadFile of a FIFO nobody writes to, or of a device, is refused at once (issue 25 #2: it
// used to hang the run past --timeout), as WriteFile and StrReplaceFile refuse them.
func TestReadFileRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Skip(err)
	}
	for _, path := range []string{filepath.Join(dir, "fifo"), "/dev/zero"} {
		res := mustCall(t, NewReadFile(Env{WorkDir: dir, AddDirs: []string{"/dev"}}), map[string]any{"path": path})
		if !res.IsError || !strings.Contains(res.Output, "not a regular file") {
			t.Errorf("%s: %v %s", path, res.IsError, res.Output)
		}
	}
}

// ReadMediaFile refuses them the same way, at once (issue 25 #2's class).
func TestReadMediaFileRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.png"), 0o600); err != nil {
		t.Skip(err)
	}
	tool := NewReadMediaFile(Env{WorkDir: dir, AddDirs: []string{"/dev"}, Media: MediaSupport{Images: true, Videos: true}})
	for _, path := range []string{filepath.Join(dir, "fifo.png"), "/dev/zero"} {
		res := mustCall(t, tool, map[string]any{"path": path})
		if !res.IsError || !strings.Contains(res.Output, "not a regular file") || len(res.Media) != 0 {
			t.Errorf("%s: %v %s", path, res.IsError, res.Output)
		}
	}
}
