//go:build unix

package search

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLookRipgrep: the rg Grep and Glob start is never one from a directory the run's
// commands may write (given as avoid, however the PATH entry spells it: directly, below,
// through a symbolic link) nor from a relative PATH entry; the first other one on PATH is.
func TestLookRipgrep(t *testing.T) {
	root := t.TempDir()
	work, sys, other := filepath.Join(root, "work"), filepath.Join(root, "sys"), filepath.Join(root, "other")
	for _, d := range []string{filepath.Join(work, "bin"), sys, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{filepath.Join(work, "bin"), sys} {
		if err := os.WriteFile(filepath.Join(d, "rg"), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(work, "bin"), filepath.Join(other, "link")); err != nil {
		t.Fatal(err)
	}
	// An rg outside the work dir that is a link to the one planted in it.
	if err := os.Symlink(filepath.Join(work, "bin", "rg"), filepath.Join(other, "rg")); err != nil {
		t.Fatal(err)
	}
	path := func(dirs ...string) string { return strings.Join(dirs, string(filepath.ListSeparator)) }
	for _, tt := range []struct {
		name, path, want string
	}{
		{"planted first", path(filepath.Join(work, "bin"), sys), filepath.Join(sys, "rg")},
		{"through a link", path(filepath.Join(other, "link"), other, sys), filepath.Join(sys, "rg")},
		{"relative entry", path("work/bin", "", "."), ""},
		{"only planted", filepath.Join(work, "bin"), ""},
		{"system", sys, filepath.Join(sys, "rg")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := LookRipgrep(tt.path, work); got != tt.want {
				t.Errorf("LookRipgrep(%q) = %q, want %q", tt.path, got, tt.want)
			}
		})
	}
}
