//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/kimi-run/kimi-run/internal/beneath"
)

// ErrPathChanged means a directory on the way to a file was replaced by a symbolic link
// while a file tool was about to write there.
var ErrPathChanged = errors.New("a directory on the way was replaced by a symbolic link meanwhile")

// OpenDir opens dir, the directory a file tool is about to write a file in, so that the
// write cannot land anywhere else: dir is checked against the writable roots, then opened
// beneath its root without following any symbolic link (openat2 with RESOLVE_BENEATH and
// RESOLVE_NO_SYMLINKS, or one O_NOFOLLOW step per component on kernels before 5.6). A link
// swapped in after the check fails the open instead of leading the write outside.
// The tool then creates, renames and opens its files relative to the directory.
func (p Policy) OpenDir(dir string) (*os.File, error) {
	if !p.RestrictsFiles() {
		return os.Open(dir)
	}
	real, err := realPath(dir)
	if err != nil {
		return nil, fmt.Errorf("sandbox: resolve %s: %w", dir, err)
	}
	roots := p.WritableRoots()
	for _, root := range roots {
		r, err := realPath(root)
		if err != nil || !within(real, r) {
			continue
		}
		// The real path holds no link: none is followed, from / down.
		f, err := beneath.OpenDir("/", real)
		if errors.Is(err, beneath.ErrLink) || errors.Is(err, unix.ENOTDIR) {
			return nil, fmt.Errorf("sandbox: open %s: %w", dir, ErrPathChanged)
		}
		if err != nil {
			return nil, fmt.Errorf("sandbox: open %s: %w", dir, err)
		}
		return f, nil
	}
	return nil, &DeniedError{Path: dir, Roots: roots}
}
