//go:build unix

package filechanges

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// plantFIFO puts a FIFO in the place of path (made or replaced), as a command can.
func plantFIFO(t *testing.T, path string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.Remove(path)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
}

// plantPack puts a pack in objects whose index is a FIFO: git looks objects up in it.
func plantPack(t *testing.T, objects string) {
	t.Helper()
	plantFIFO(t, filepath.Join(objects, "pack", "pack-1.idx"))
	os.WriteFile(filepath.Join(objects, "pack", "pack-1.pack"), nil, 0o644)
}

// unseenAfter takes the state of a repository with a.txt, lets plant change a.txt's
// repository, and returns what Collect then says: the unseen dirs and the warnings.
func unseenAfter(t *testing.T, limit time.Duration, plant func(top string)) (unseen, warnings []string) {
	t.Helper()
	top := gitInit(t, map[string]string{"a.txt": "a\n"})
	tr := New(Config{WorkDir: top, GitLimit: limit, Warn: func(w string) { warnings = append(warnings, w) }})
	tr.beforeCommand(context.Background())
	if len(tr.repos) != 1 {
		t.Fatalf("no snapshot: %v", warnings)
	}
	os.WriteFile(filepath.Join(top, "a.txt"), []byte("b\n"), 0o644)
	plant(top)
	list, unseen, _ := tr.Collect(context.Background())
	if len(list) != 0 {
		t.Errorf("changes listed from a store git cannot read: %+v", list)
	}
	return unseen, warnings
}

// TestGitStoreFIFOIsNotOpened: a FIFO a command put in the repository's object store, as
// its info/alternates or a pack's index, or in a store its alternates name, is found
// before git runs: the work dir is unseen, a warning names the FIFO, and nothing waits on
// it (the limit is far off).
func TestGitStoreFIFOIsNotOpened(t *testing.T) {
	t.Parallel()
	for name, plant := range map[string]func(objects string){
		"alternates": func(objects string) { plantFIFO(t, filepath.Join(objects, "info", "alternates")) },
		"pack":       func(objects string) { plantPack(t, objects) },
		"an alternate's pack": func(objects string) {
			other := t.TempDir()
			plantPack(t, other)
			os.MkdirAll(filepath.Join(objects, "info"), 0o755)
			os.WriteFile(filepath.Join(objects, "info", "alternates"), []byte("# a comment\n"+other+"\n"), 0o644)
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			unseen, warnings := unseenAfter(t, time.Hour, func(top string) { plant(filepath.Join(top, ".git", "objects")) })
			if fmt.Sprint(unseen) != "[.]" || len(warnings) != 1 || !strings.Contains(warnings[0], "no regular file: git would wait on it") {
				t.Errorf("unseen %v, warnings %q", unseen, warnings)
			}
		})
	}
}

// TestGitLimitEndsAWait: a FIFO in the place of the loose object of a.txt as it was, which
// the comparison reads to count its lines, blocks git until the tracker's limit ends it:
// the work dir is unseen and the warning names the limit.
func TestGitLimitEndsAWait(t *testing.T) {
	t.Parallel()
	unseen, warnings := unseenAfter(t, time.Second, func(top string) {
		cmd := exec.Command("git", "rev-parse", "HEAD:a.txt")
		cmd.Dir = top
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		id := strings.TrimSpace(string(out))
		plantFIFO(t, filepath.Join(top, ".git", "objects", id[:2], id[2:]))
	})
	if fmt.Sprint(unseen) != "[.]" || len(warnings) != 1 || !strings.Contains(warnings[0], "git did not finish within 1s") {
		t.Errorf("unseen %v, warnings %q", unseen, warnings)
	}
}
