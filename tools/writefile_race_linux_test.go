//go:build linux

package tools_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/kimi-run/kimi-run/sandbox"
	"github.com/kimi-run/kimi-run/tools"
)

// confinedEnv is a work dir and a directory beside it, with the write tools confined to
// the work dir as under --sandbox workspace-write.
func confinedEnv(t *testing.T) (env tools.Env, work, outside string) {
	root := t.TempDir()
	work, outside = filepath.Join(root, "work"), filepath.Join(root, "outside")
	for _, d := range []string{work, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p := sandbox.Policy{Mode: sandbox.WorkspaceWrite, Writable: []string{work}}
	return tools.Env{WorkDir: work, WriteDirs: p}, work, outside
}

func call(t *testing.T, tool tools.Tool, args map[string]any) tools.Result {
	t.Helper()
	raw, _ := json.Marshal(args)
	res, err := tool.Run(context.Background(), raw)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// A directory swapped with a link to the outside between the check and the write
// (renameat2 RENAME_EXCHANGE in a loop, the attack of issue 17 that landed 22 of 400
// writes outside): every write lands in the work dir or fails, none outside.
func TestWriteFileRaceWithSymlinkSwap(t *testing.T) {
	env, work, outside := confinedEnv(t)
	dir, link := filepath.Join(work, "a"), filepath.Join(work, "b")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	var swaps atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := unix.Renameat2(unix.AT_FDCWD, dir, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("renameat2: %v", err)
				return
			}
			swaps.Add(1)
		}
	})
	write, edit := tools.NewWriteFile(env), tools.NewStrReplaceFile(env)
	for i := range 400 {
		target := filepath.Join(dir, "f.txt")
		switch i % 3 {
		case 0:
			call(t, write, map[string]any{"path": target, "content": "x\n"})
		case 1:
			call(t, write, map[string]any{"path": target, "content": "x\n", "mode": "append"})
		case 2:
			call(t, edit, map[string]any{"path": target, "edit": map[string]any{"old": "x", "new": "y"}})
		}
	}
	close(stop)
	wg.Wait()
	if swaps.Load() == 0 {
		t.Fatal("the swapper never swapped: the test tested nothing")
	}
	entries, err := os.ReadDir(outside)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("a write landed outside the work dir: %s", e.Name())
	}
}

// A hard link in the work dir to a file outside: an append through it is refused, an
// overwrite replaces the name in the work dir only; the outside file keeps its content.
func TestWriteFileThroughHardLink(t *testing.T) {
	env, work, outside := confinedEnv(t)
	target, link := filepath.Join(outside, "target"), filepath.Join(work, "link")
	if err := os.WriteFile(target, []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(target, link); err != nil {
		t.Skipf("hard link: %v", err)
	}
	write := tools.NewWriteFile(env)
	res := call(t, write, map[string]any{"path": "link", "content": "appended\n", "mode": "append"})
	if !res.IsError || !strings.Contains(res.Output, "hard links") {
		t.Errorf("the append through the hard link was not refused: %+v", res)
	}
	res = call(t, write, map[string]any{"path": "link", "content": "new\n"})
	if res.IsError {
		t.Errorf("the overwrite failed: %+v", res)
	}
	if got, _ := os.ReadFile(target); string(got) != "outside\n" {
		t.Errorf("the outside file holds %q", got)
	}
	if got, _ := os.ReadFile(link); string(got) != "new\n" {
		t.Errorf("the work dir's file holds %q", got)
	}
}
