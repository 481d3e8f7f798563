package tools

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// searchEpoch is the modification time fixtures get, so that files with equal times are
// listed by path and outputs are deterministic.
var searchEpoch = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

// searchFixture creates files below root: a name ending in "/" makes a directory. Every
// entry gets the same modification time.
func searchFixture(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		return os.Chtimes(p, searchEpoch, searchEpoch)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// setMtime gives one fixture file its own modification time, offset from searchEpoch.
func setMtime(t *testing.T, root, name string, offset time.Duration) {
	t.Helper()
	when := searchEpoch.Add(offset)
	if err := os.Chtimes(filepath.Join(root, filepath.FromSlash(name)), when, when); err != nil {
		t.Fatal(err)
	}
}

// runSearchTool calls a tool with args marshalled to JSON and fails on a Go error.
func runSearchTool(t *testing.T, tool Tool, args any) Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tool.Run(context.Background(), raw)
	if err != nil {
		t.Fatalf("%s returned a Go error: %v", tool.Name(), err)
	}
	return res
}

// outputLines splits a tool output into lines, dropping the notes after a blank line.
func outputLines(out string) []string {
	body, _, _ := strings.Cut(out, "\n\n")
	if body == "" {
		return nil
	}
	return strings.Split(body, "\n")
}

// symlinkOrSkip creates a symbolic link or skips the test where links are not allowed.
func symlinkOrSkip(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("cannot create symbolic links here: %v", err)
	}
}
