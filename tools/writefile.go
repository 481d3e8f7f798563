package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kimi-run/kimi-run/internal/atomicfile"
)

// newFileMode is the permission of a file WriteFile creates (before the umask on append;
// an atomic overwrite sets it exactly).
const newFileMode fs.FileMode = 0o644

const writeFileDescription = `Write text to a file, creating it or replacing its content.

path is absolute, or relative to the work dir (a relative path may not leave the work dir). The parent directory must already exist; create it with Shell (mkdir -p) first if needed.
content is the full text to write.
mode is "overwrite" (default: the file ends up holding exactly content) or "append" (content is added at the end; the file is created if missing).

An overwrite is atomic: the file holds either its old or its new content, never a mix, and keeps its permissions. To change part of an existing file, prefer StrReplaceFile.`

// writeFileArgs are the arguments of a WriteFile call.
type writeFileArgs struct {
	Path    string `json:"path" description:"file to write: absolute, or relative to the work dir"`
	Content string `json:"content" description:"text to write"`
	Mode    string `json:"mode,omitempty" enum:"overwrite,append" default:"\"overwrite\"" description:"overwrite (default) replaces the content; append adds to the end"`
}

// NewWriteFile returns the WriteFile tool, which creates, replaces or appends to files.
func NewWriteFile(env Env) Tool {
	return New("WriteFile", writeFileDescription, Facts{WritesFiles: true, PathArg: "path", Destructive: true}, func(_ context.Context, in writeFileArgs) (Result, error) {
		return writeFile(env, in), nil
	})
}

func writeFile(env Env, in writeFileArgs) Result {
	mode := in.Mode
	if mode == "" {
		mode = "overwrite"
	}
	if mode != "overwrite" && mode != "append" {
		return Errorf("mode must be \"overwrite\" or \"append\", got %q", in.Mode)
	}
	path, err := ResolvePath(env.WorkDir, in.Path, env.AddDirs...)
	if err != nil {
		return Errorf("cannot write: %v", err)
	}
	path, err = followLink(path)
	if err != nil {
		return Errorf("cannot write %s: %v", in.Path, err)
	}
	if err := checkParent(path); err != nil {
		res := Errorf("cannot write %s: %v", in.Path, err)
		if _, serr := os.Stat(filepath.Dir(path)); errors.Is(serr, fs.ErrNotExist) {
			res = res.WithKimi(fmt.Sprintf("`%s` parent directory does not exist.", in.Path), "")
		}
		return res
	}
	info, err := os.Stat(path)
	existed := err == nil
	switch {
	case existed && info.IsDir():
		return Errorf("cannot write %s: it is a directory", in.Path)
	case existed && !info.Mode().IsRegular():
		return Errorf("cannot write %s: it is not a regular file (%s)", in.Path, info.Mode().Type())
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return Errorf("cannot write %s: %v", in.Path, err)
	}

	if mode == "append" {
		var size int64
		err := changing(env, path, func() (err error) {
			size, err = appendFile(env, path, []byte(in.Content))
			return err
		})
		if err != nil {
			return Errorf("cannot append to %s: %v", in.Path, err)
		}
		return Text(fmt.Sprintf("Appended %d bytes to %s. File size: %d bytes.", len(in.Content), in.Path, size)).
			WithKimi(fmt.Sprintf("File successfully appended to. Current size: %d bytes.", size), "")
	}
	perm := newFileMode
	if existed {
		perm = info.Mode().Perm()
	}
	if err := changing(env, path, func() error { return writeAtomic(env, path, []byte(in.Content), perm) }); err != nil {
		return Errorf("cannot write %s: %v", in.Path, err)
	}
	verb := "Created"
	if existed {
		verb = "Overwrote"
	}
	return Text(fmt.Sprintf("%s %s with %d bytes. File size: %d bytes.", verb, in.Path, len(in.Content), len(in.Content))).
		WithKimi(fmt.Sprintf("File successfully overwritten. Current size: %d bytes.", len(in.Content)), "")
}

// changing makes the change write does to path between env.Changes' Before and After.
func changing(env Env, path string, write func() error) error {
	if env.Changes == nil {
		return write()
	}
	env.Changes.Before(path)
	defer env.Changes.After(path)
	return write()
}

// followLink returns the file a symbolic link at path points to, so that replacing the
// file keeps the link. Other paths are returned unchanged.
func followLink(path string) (string, error) {
	info, err := os.Lstat(path)
	if err != nil || info.Mode()&fs.ModeSymlink == 0 {
		return path, nil
	}
	target, err := filepath.EvalSymlinks(path)
	if errors.Is(err, fs.ErrNotExist) {
		// A dangling link: write where it points, like a plain write through it would.
		dest, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(path), dest)
		}
		return dest, nil
	}
	return target, err
}

// checkParent reports, in words for the model, a parent directory that is missing or is
// not a directory.
func checkParent(path string) error {
	dir := filepath.Dir(path)
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("the parent directory %s does not exist; create it first (e.g. Shell: mkdir -p %s)", dir, dir)
	case err != nil:
		return err
	case !info.IsDir():
		return fmt.Errorf("the parent %s is not a directory", dir)
	}
	return nil
}

// openWriteDir opens the directory path is in, through env.WriteDirs when it is set.
func openWriteDir(env Env, path string) (*os.File, error) {
	if env.WriteDirs != nil {
		return env.WriteDirs.OpenDir(filepath.Dir(path))
	}
	return os.Open(filepath.Dir(path))
}

// appendFile adds data at the end of path, creating it if needed, and returns the new size.
func appendFile(env Env, path string, data []byte) (int64, error) {
	dir, err := openWriteDir(env, path)
	if err != nil {
		return 0, err
	}
	defer dir.Close()
	return appendIn(dir, filepath.Base(path), data, env.WriteDirs != nil)
}

// writeAtomic replaces path with data with atomicfile's guarantee, relative to the directory
// openWriteDir opened: a run killed halfway never leaves a half-written file, and a link at
// the name is replaced, not written through.
func writeAtomic(env Env, path string, data []byte, perm fs.FileMode) error {
	dir, err := openWriteDir(env, path)
	if err != nil {
		return err
	}
	defer dir.Close()
	return atomicfile.WriteIn(dir, filepath.Base(path), data, perm)
}
