package runplan

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kimi-run/kimi-run/internal/beneath"
)

// CreateAddDirs makes the --add-dir directories that do not exist yet, with a warning
// naming each (a typo shows). A build cache such as ~/.cache/go-build is missing on a fresh
// runner until the first build, and the README's CI invocation names one: refusing it would
// fail the job the first time only, and ignoring it would leave the sandbox without it.
// Something other than a directory there is left to addDirs to refuse.
//
// A directory is made without following a symbolic link that a command of an earlier run
// could have planted: `--add-dir $WORK/link/new`, with link pointing outside, would make
// a directory outside. A link on the way that lies in the work dir or in
// another --add-dir is refused; the missing part is made one directory at a time, each
// opened without following links (beneath.MkdirAll from /: base is a real path).
func CreateAddDirs(workDir string, dirs []string, warn func(string)) error {
	planted := plantable(workDir, dirs)
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return fmt.Errorf("--add-dir %s: %v", d, err)
		}
		if _, err := os.Lstat(abs); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		base, missing, err := existingPart(abs, planted)
		if err == nil && len(missing) > 0 {
			var f *os.File
			if f, err = beneath.MkdirAll("/", filepath.Join(append([]string{base}, missing...)...), 0o755); err == nil {
				f.Close()
			}
		}
		if err != nil {
			return fmt.Errorf("--add-dir %s does not exist and was not created: %w", d, err)
		}
		warn("--add-dir " + d + " did not exist: created it")
	}
	return nil
}

// plantable are the directories where a sandboxed command may have made a symbolic link:
// the work dir and the --add-dir dirs, as named and, when they exist, as resolved.
func plantable(workDir string, dirs []string) []string {
	var out []string
	for _, d := range append([]string{workDir}, dirs...) {
		abs, err := filepath.Abs(d)
		if err != nil {
			continue
		}
		out = append(out, abs)
		if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
			out = append(out, real)
		}
	}
	return out
}

// existingPart walks path (absolute) from its root and returns the real path of the part
// that exists and the names below it that do not. A symbolic link on the way is followed
// (a system's /tmp or /var/run) unless it lies below one of the planted dirs.
func existingPart(path string, planted []string) (string, []string, error) {
	vol := filepath.VolumeName(path)
	sep := string(filepath.Separator)
	cur := vol + sep
	names := strings.Split(strings.Trim(path[len(vol):], sep), sep)
	for i, name := range names {
		next := filepath.Join(cur, name)
		info, err := os.Lstat(next)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return cur, names[i:], nil
		case err != nil:
			return "", nil, err
		case info.Mode()&fs.ModeSymlink != 0:
			for _, p := range planted {
				if next != p && inside(next, p) {
					return "", nil, fmt.Errorf("%s is a symbolic link inside %s, where a command may have made it, and is not followed; create the directory yourself or give its real path", next, p)
				}
			}
			if cur, err = filepath.EvalSymlinks(next); err != nil {
				return "", nil, err
			}
		case !info.IsDir():
			return "", nil, fmt.Errorf("%s is not a directory", next)
		default:
			cur = next
		}
	}
	return cur, nil, nil
}

// inside reports whether path is dir or lies below it; both absolute and clean.
func inside(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// addDirs checks --add-dir: each must be a directory. They come back absolute, once each,
// without those inside the work dir, which the agent may use anyway (as Kimi CLI does).
func addDirs(workDir string, given []string) ([]string, error) {
	var out []string
	for _, d := range given {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("--add-dir %s: %v", d, err)
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("--add-dir %s is not a directory", d)
		}
		if !inside(abs, workDir) && !slices.Contains(out, abs) {
			out = append(out, abs)
		}
	}
	return out, nil
}
