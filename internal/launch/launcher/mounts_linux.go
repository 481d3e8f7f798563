package launcher

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/kimi-run/kimi-run/sandbox"
)

// The mounts of a confined arm's namespace (setUp), laid out before the arm confines itself,
// each part on its own:
//   - read-only: every mount read-only but the writable roots, so chmod, chown and utimes
//     outside them fail, which Landlock cannot refuse;
//   - a /tmp of the run's own: a fresh tmpfs over the shared temp dir the run's temp dir
//     was made in (/tmp, or $TMPDIR), with what the run needs from there put back at its
//     path: the writable roots below it (the temp dir; a work dir or --add-dir there), and,
//     readable, HOME and the proxy's socket folder. Another run's temp dir and socket
//     folder, and whatever else is kept there, are out of the commands' sight.
//
// Both put clones of mounts (open_tree), taken while their paths were visible and
// writable, back on top.

func readOnlyNote(err error) string {
	return fmt.Sprintf("--sandbox: the file system cannot be made read-only for commands here (%v): chmod, chown and utimes outside the writable dirs are not refused; see docs/sandbox.md", err)
}

func tmpNote(err error) string {
	return fmt.Sprintf("--sandbox: commands cannot have a /tmp of their own here (%v): they see what other runs and programs keep in the shared temp dir; see docs/sandbox.md", err)
}

// partialError is a layout of the mounts that failed half way and could not be undone:
// a writable root not put back, or a /tmp that hides HOME.
type partialError struct{ err error }

func (e *partialError) Error() string { return e.err.Error() }
func (e *partialError) Unwrap() error { return e.err }

// mounts lays out the namespace's mounts for policy p. A part that is refused is left out
// and noted; one that cannot be undone fails the arm (a partialError).
func (ns *armNS) mounts(p sandbox.Policy) error {
	roErr, tmpErr := omitted(p, NSReadOnly), omitted(p, NSTmp)
	var shared string
	var keep []string
	if tmpErr == nil {
		shared, keep, tmpErr = sharedTmp(p)
	}
	if roErr == nil || tmpErr == nil {
		roots, err := cloneTrees(p.WritableRoots())
		defer roots.close()
		if err != nil {
			roErr, tmpErr = errors.Join(roErr, err), errors.Join(tmpErr, err)
		}
		if tmpErr == nil {
			tmpErr = privateTmp(shared, keep, roots.at)
		}
		if roErr == nil {
			if err := unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
				roErr = fmt.Errorf("make the mounts read-only: %w", err)
			}
		}
		var partial *partialError
		if errors.As(tmpErr, &partial) {
			return tmpErr
		}
		if roErr == nil || tmpErr == nil {
			if err := roots.putBack(); err != nil {
				return &partialError{err}
			}
		}
	}
	if roErr != nil {
		ns.notes = append(ns.notes, readOnlyNote(roErr))
	}
	if tmpErr != nil {
		ns.notes = append(ns.notes, tmpNote(tmpErr))
	}
	return nil
}

// sharedTmp is the shared temp dir to cover (the parent of the run's temp dir) and the
// paths below it that stay readable (a work dir and --add-dir dirs not writable, HOME, the
// policy's Readable dirs, the proxy's socket folder), real paths; or why it cannot be
// covered: a writable root, the work dir or an --add-dir holds it, or one of the others is it.
func sharedTmp(p sandbox.Policy) (string, []string, error) {
	if p.TempDir == "" {
		return "", nil, errors.New("the run has no temp dir")
	}
	tmp, err := filepath.EvalSymlinks(p.TempDir)
	if err != nil {
		return "", nil, fmt.Errorf("resolve the temp dir: %w", err)
	}
	shared := filepath.Dir(tmp)
	if shared == "/" {
		return "", nil, errors.New("the temp dir is made at the root")
	}
	// The work dir and the --add-dir dirs stay whole, writable or not (read-only mode).
	dirs := append(p.WritableRoots(), p.Writable...)
	for _, dir := range dirs {
		if real, err := filepath.EvalSymlinks(dir); err == nil && within(real, shared) {
			return "", nil, fmt.Errorf("%s holds the shared temp dir %s", dir, shared)
		}
	}
	var keep []string
	for _, path := range append(slices.DeleteFunc(dirs, func(d string) bool { return slices.Contains(p.WritableRoots(), d) }), append(p.Readable, p.Home, proxyDir(p))...) {
		real, err := filepath.EvalSymlinks(path)
		switch {
		case path == "" || err != nil:
		case real == shared:
			return "", nil, fmt.Errorf("%s (HOME, or a confined MCP server's program's dir or cwd) is the shared temp dir", path)
		case within(shared, real):
			keep = append(keep, real)
		}
	}
	return shared, keep, nil
}

// proxyDir is the folder of the proxy's socket, or "".
func proxyDir(p sandbox.Policy) string {
	if p.ProxySocket == "" {
		return ""
	}
	return filepath.Dir(p.ProxySocket)
}

// within reports whether path is dir or lies below it.
func within(dir, path string) bool {
	return path == dir || strings.HasPrefix(path, strings.TrimSuffix(dir, "/")+"/")
}

// privateTmp puts a fresh tmpfs over shared, with clones of keep at their paths and the
// mount points of roots (put back later) made. On a failure it takes the tmpfs away
// again; when it cannot, a partialError.
func privateTmp(shared string, keep, roots []string) error {
	kept, err := cloneTrees(keep)
	defer kept.close()
	if err != nil {
		return err
	}
	st, err := os.Stat(shared)
	if err != nil {
		return err
	}
	fs, err := unix.Fsopen("tmpfs", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return fmt.Errorf("open a tmpfs: %w", err)
	}
	defer unix.Close(fs)
	if err := unix.FsconfigSetString(fs, "mode", fmt.Sprintf("%o", uint32(st.Mode().Perm())|sticky(st.Mode()))); err != nil {
		return fmt.Errorf("make a tmpfs: %w", err)
	}
	if err := unix.FsconfigCreate(fs); err != nil {
		return fmt.Errorf("make a tmpfs: %w", err)
	}
	m, err := unix.Fsmount(fs, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV)
	if err != nil {
		return fmt.Errorf("mount a tmpfs: %w", err)
	}
	defer unix.Close(m)
	if err := unix.MoveMount(m, "", unix.AT_FDCWD, shared, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return fmt.Errorf("mount a tmpfs on %s: %w", shared, err)
	}
	err = kept.putBack()
	for _, root := range roots {
		if err == nil && within(shared, root) {
			err = os.MkdirAll(root, 0o755)
		}
	}
	if err == nil {
		return nil
	}
	if uerr := unix.Unmount(shared, unix.MNT_DETACH); uerr != nil {
		return &partialError{fmt.Errorf("%w; and the tmpfs on %s stays: %w", err, shared, uerr)}
	}
	return err
}

// sticky is the sticky bit of mode, as chmod writes it.
func sticky(mode os.FileMode) uint32 {
	if mode&os.ModeSticky != 0 {
		return 0o1000
	}
	return 0
}

// trees are clones of the mounts at some paths (real paths), to be put back there.
type trees struct {
	fds []int
	at  []string
}

// cloneTrees clones the mounts at each of paths, resolved through links.
func cloneTrees(paths []string) (*trees, error) {
	t := &trees{}
	for _, path := range paths {
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			return t, fmt.Errorf("resolve %s: %w", path, err)
		}
		fd, err := unix.OpenTree(unix.AT_FDCWD, real, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
		if err != nil {
			return t, fmt.Errorf("clone the mounts of %s: %w", real, err)
		}
		t.fds, t.at = append(t.fds, fd), append(t.at, real)
	}
	return t, nil
}

// putBack moves each clone onto its path (made where it is missing), in order.
func (t *trees) putBack() error {
	for i, fd := range t.fds {
		if err := os.MkdirAll(t.at[i], 0o755); err != nil {
			return fmt.Errorf("make the mount point %s: %w", t.at[i], err)
		}
		if err := unix.MoveMount(fd, "", unix.AT_FDCWD, t.at[i], unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return fmt.Errorf("put back %s: %w", t.at[i], err)
		}
	}
	return nil
}

func (t *trees) close() {
	for _, fd := range t.fds {
		unix.Close(fd)
	}
}
