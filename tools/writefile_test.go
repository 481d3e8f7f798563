package tools

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestWriteFile(t *testing.T) {
	tests := []struct {
		name     string
		setup    func(t *testing.T, dir string) // files present before the call
		args     map[string]any
		isError  bool
		contains string
		file     string      // file to check afterwards, relative to the work dir
		want     string      // its content
		absent   bool        // the file must not exist
		perm     os.FileMode // its permission bits, when set
	}{
		{
			name: "create", args: map[string]any{"path": "new.txt", "content": "hello\n"},
			contains: "Created new.txt with 6 bytes. File size: 6 bytes.", file: "new.txt", want: "hello\n", perm: 0o644,
		},
		{
			name:     "overwrite keeps the mode",
			setup:    func(t *testing.T, dir string) { writeMode(t, filepath.Join(dir, "run.sh"), "old old old\n", 0o755) },
			args:     map[string]any{"path": "run.sh", "content": "new\n", "mode": "overwrite"},
			contains: "Overwrote run.sh with 4 bytes. File size: 4 bytes.", file: "run.sh", want: "new\n", perm: 0o755,
		},
		{
			name:  "overwrite keeps a private mode",
			setup: func(t *testing.T, dir string) { writeMode(t, filepath.Join(dir, "p.txt"), "x", 0o600) },
			args:  map[string]any{"path": "p.txt", "content": "y"}, file: "p.txt", want: "y", perm: 0o600,
		},
		{
			name:     "append",
			setup:    func(t *testing.T, dir string) { writeTestFile(t, dir, "log.txt", "one\n") },
			args:     map[string]any{"path": "log.txt", "content": "two\n", "mode": "append"},
			contains: "Appended 4 bytes to log.txt. File size: 8 bytes.", file: "log.txt", want: "one\ntwo\n",
		},
		{
			name: "append creates", args: map[string]any{"path": "fresh.log", "content": "first\n", "mode": "append"},
			contains: "File size: 6 bytes.", file: "fresh.log", want: "first\n",
		},
		{
			name:  "empty content",
			setup: func(t *testing.T, dir string) { writeTestFile(t, dir, "e.txt", "full") },
			args:  map[string]any{"path": "e.txt", "content": ""}, file: "e.txt", want: "",
		},
		{
			name: "missing parent", args: map[string]any{"path": "no/such/dir/f.txt", "content": "x"},
			isError: true, contains: "does not exist", file: "no/such/dir/f.txt", absent: true,
		},
		{
			name:  "parent is a file",
			setup: func(t *testing.T, dir string) { writeTestFile(t, dir, "plain", "x") },
			args:  map[string]any{"path": "plain/f.txt", "content": "x"}, isError: true, contains: "not a directory",
		},
		{
			name:  "path is a directory",
			setup: func(t *testing.T, dir string) { os.Mkdir(filepath.Join(dir, "d"), 0o755) },
			args:  map[string]any{"path": "d", "content": "x"}, isError: true, contains: "directory",
		},
		{
			name: "bad mode", args: map[string]any{"path": "m.txt", "content": "x", "mode": "truncate"},
			isError: true, contains: `"truncate"`, file: "m.txt", absent: true,
		},
		{
			name: "escape refused", args: map[string]any{"path": "../up.txt", "content": "x"},
			isError: true, contains: "outside the work dir",
		},
		{name: "missing content", args: map[string]any{"path": "c.txt"}, isError: true, contains: `"content"`, file: "c.txt", absent: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.setup != nil {
				tt.setup(t, dir)
			}
			res := mustCall(t, NewWriteFile(Env{WorkDir: dir}), tt.args)
			if res.IsError != tt.isError {
				t.Fatalf("IsError = %v, want %v: %s", res.IsError, tt.isError, res.Output)
			}
			if !strings.Contains(res.Output, tt.contains) {
				t.Errorf("output %q lacks %q", res.Output, tt.contains)
			}
			if tt.file != "" {
				checkFile(t, filepath.Join(dir, tt.file), tt.want, tt.absent, tt.perm)
			}
			checkNoTempFiles(t, dir)
		})
	}
}

func TestWriteFileThroughSymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on windows")
	}
	dir := t.TempDir()
	target := writeTestFile(t, dir, "real.txt", "old\n")
	if err := os.Symlink("real.txt", filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	res := mustCall(t, NewWriteFile(Env{WorkDir: dir}), map[string]any{"path": "link.txt", "content": "new\n"})
	if res.IsError {
		t.Fatal(res.Output)
	}
	if info, err := os.Lstat(filepath.Join(dir, "link.txt")); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link.txt is no longer a symbolic link")
	}
	checkFile(t, target, "new\n", false, 0)
}

func TestWriteFileAbsolutePath(t *testing.T) {
	elsewhere := filepath.Join(t.TempDir(), "abs.txt")
	res := mustCall(t, NewWriteFile(Env{WorkDir: t.TempDir()}), map[string]any{"path": elsewhere, "content": "abs"})
	if res.IsError {
		t.Fatal(res.Output)
	}
	checkFile(t, elsewhere, "abs", false, 0)
}

// writeMode creates path with content and exactly perm.
func writeMode(t *testing.T, path, content string, perm os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil {
		t.Fatal(err)
	}
}

// checkFile checks path's content and, when perm is set and the OS has Unix modes, its mode.
func checkFile(t *testing.T, path, want string, absent bool, perm os.FileMode) {
	t.Helper()
	data, err := os.ReadFile(path)
	if absent {
		if err == nil {
			t.Errorf("%s exists, want it absent", path)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != want {
		t.Errorf("%s holds %q, want %q", path, data, want)
	}
	if perm != 0 && runtime.GOOS != "windows" {
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Mode().Perm(); got != perm {
			t.Errorf("%s has mode %v, want %v", path, got, perm)
		}
	}
}

// checkNoTempFiles fails if an atomic write left a temporary file behind.
func checkNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	if err != nil {
		t.Fatal(err)
	}
	if len(matches) > 0 {
		t.Errorf("temporary files left behind: %v", matches)
	}
}
