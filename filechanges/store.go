package filechanges

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// maxAlternates is the most git's depth of alternates: it ignores those nested deeper.
const maxAlternates = 5

// checkStore makes sure git opens no file of the object store objects, nor of the stores
// it names as alternates, that would make it wait: a FIFO a command put in the place of
// info/alternates or of a file in pack/ (a pack, its index, a multi-pack-index), which git
// opens as any reader does. Each must be a regular file or a directory, links followed as
// git follows them; a store where one is not is not looked at. The loose objects are too
// many to check: gitLimit bounds the wait on them.
func checkStore(objects string) error {
	return checkStores(objects, map[string]bool{}, 0)
}

func checkStores(objects string, seen map[string]bool, depth int) error {
	if depth > maxAlternates || seen[objects] {
		return nil
	}
	seen[objects] = true
	entries, _ := os.ReadDir(filepath.Join(objects, "pack"))
	for _, e := range entries {
		if err := waitless(filepath.Join(objects, "pack", e.Name())); err != nil {
			return err
		}
	}
	list := filepath.Join(objects, "info", "alternates")
	if err := waitless(list); err != nil {
		return err
	}
	f, err := os.OpenFile(list, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil // none, or git cannot read it either
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is no regular file: git would wait on it", list) // swapped in meanwhile
	}
	b, _ := io.ReadAll(io.LimitReader(f, 1<<20))
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, `"`) {
			line, _ = strconv.Unquote(line) // git's C quoting
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if err := checkStores(absUnder(objects, line), seen, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// waitless reports an error when path, links followed, is there and is neither a regular
// file nor a directory: opening it could wait (a FIFO) or act (a device).
func waitless(path string) error {
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().IsRegular() || fi.IsDir() {
		return nil
	}
	return fmt.Errorf("%s is no regular file: git would wait on it", path)
}
