package search

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ignoreFileNames are the per-directory ignore files, in rising precedence, as ripgrep
// reads them.
var ignoreFileNames = [...]string{".gitignore", ".ignore", ".rgignore"}

// vcsDirs are never searched or listed.
var vcsDirs = map[string]bool{".git": true, ".hg": true, ".svn": true}

// maxIgnoreFileSize bounds what is read of one ignore file.
const maxIgnoreFileSize = 1 << 20

// ignoreFrame holds the ignore files of one directory. Frames link to the nearest
// ancestor directory that has ignore files, so a lookup walks up the tree.
type ignoreFrame struct {
	parent  *ignoreFrame
	dir     string         // slash-separated absolute directory
	files   [3]ignoreRules // .gitignore, .ignore, .rgignore
	exclude ignoreRules    // .git/info/exclude, for a repository root
	repo    bool           // the directory holds .git: .gitignore files above it do not apply
}

// ignored reports whether p (slash-separated, absolute) is excluded. As in ripgrep, for
// each kind of file the nearest directory with a matching rule decides, .rgignore beats
// .ignore beats .gitignore beats .git/info/exclude, and .gitignore files above the
// repository root are not consulted.
func (f *ignoreFrame) ignored(p, name string, isDir bool) bool {
	var verdicts [4]ignoreVerdict // rgignore, ignore, gitignore, exclude
	inRepo := true
	for fr := f; fr != nil; fr = fr.parent {
		rel := p[len(fr.dir):]
		if !strings.HasSuffix(fr.dir, "/") {
			rel = rel[1:]
		}
		if verdicts[0] == verdictNone {
			verdicts[0] = fr.files[2].match(rel, name, isDir)
		}
		if verdicts[1] == verdictNone {
			verdicts[1] = fr.files[1].match(rel, name, isDir)
		}
		if inRepo {
			if verdicts[2] == verdictNone {
				verdicts[2] = fr.files[0].match(rel, name, isDir)
			}
			if verdicts[3] == verdictNone {
				verdicts[3] = fr.exclude.match(rel, name, isDir)
			}
			inRepo = !fr.repo
		}
	}
	for _, v := range verdicts {
		if v != verdictNone {
			return v == verdictIgnore
		}
	}
	return false
}

// loadIgnoreFrame reads the ignore files of dir, or returns parent when it has none.
// names are the directory's entries when already listed, nil to probe for the files.
func loadIgnoreFrame(parent *ignoreFrame, dir string, names []string) *ignoreFrame {
	var present [4]bool // the three ignore files, then .git
	found := false
	for i, want := range [...]string{ignoreFileNames[0], ignoreFileNames[1], ignoreFileNames[2], ".git"} {
		if names == nil {
			_, err := os.Lstat(dir + "/" + want)
			present[i] = err == nil
		} else {
			for _, n := range names {
				if n == want {
					present[i] = true
					break
				}
			}
		}
		found = found || present[i]
	}
	if !found {
		return parent
	}
	fr := &ignoreFrame{parent: parent, dir: dir, repo: present[3]}
	for i, name := range ignoreFileNames {
		if present[i] {
			fr.files[i] = readIgnoreFile(dir + "/" + name)
		}
	}
	if fr.repo {
		fr.exclude = readIgnoreFile(dir + "/.git/info/exclude")
	}
	return fr
}

func readIgnoreFile(name string) ignoreRules {
	f, err := os.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxIgnoreFileSize))
	if err != nil {
		return nil
	}
	return parseIgnoreRules(data)
}

// ancestorFrames loads the ignore files of every directory above dir, so a search that
// starts in a subdirectory still honours the rules of the project root.
func ancestorFrames(dir string) *ignoreFrame {
	var chain []string
	d := filepath.FromSlash(dir)
	for {
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		chain = append(chain, filepath.ToSlash(parent))
		d = parent
	}
	var fr *ignoreFrame
	for i := len(chain) - 1; i >= 0; i-- {
		fr = loadIgnoreFrame(fr, chain[i], nil)
	}
	return fr
}

// walkEntry is one file or directory found by a treeWalker.
type walkEntry struct {
	path  string // slash-separated absolute path
	rel   string // slash-separated path below the walk's base directory
	name  string
	isDir bool
}

// treeWalker lists a directory tree the way ripgrep does without -L: hidden entries are
// included, VCS directories and ignored entries are pruned (never read), and symbolic
// links are neither listed nor followed, so a walk never leaves its root.
type treeWalker struct {
	// prune names entries that are never listed nor entered, whatever the rules say.
	prune map[string]bool
	// override, when set, is consulted before the ignore files: verdictKeep includes an
	// entry even if ignored, verdictIgnore excludes it (a directory is then pruned).
	override func(rel, name string, isDir bool) ignoreVerdict
	// noIgnore leaves the ignore files unread: nothing is excluded by them.
	noIgnore bool
}

// walk visits the entries below start (a directory at or below base), reporting paths
// relative to base. visit returning fs.SkipDir for a directory skips its contents; any
// other error stops the walk and is returned. Unreadable directories are skipped.
func (w *treeWalker) walk(ctx context.Context, base, start string, visit func(walkEntry) error) error {
	base, start = filepath.ToSlash(base), filepath.ToSlash(start)
	rel := ""
	if start != base {
		rel = strings.TrimPrefix(start, strings.TrimSuffix(base, "/")+"/")
	}
	var frame *ignoreFrame
	if !w.noIgnore {
		frame = ancestorFrames(start)
	}
	return w.walkDir(ctx, start, rel, frame, visit)
}

func (w *treeWalker) walkDir(ctx context.Context, dir, rel string, frame *ignoreFrame, visit func(walkEntry) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil && len(entries) == 0 {
		return nil
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	if !w.noIgnore {
		frame = loadIgnoreFrame(frame, dir, names)
	}
	prefix := strings.TrimSuffix(dir, "/") + "/"
	for _, e := range entries {
		name, typ := e.Name(), e.Type()
		isDir := typ.IsDir()
		if (!isDir && !typ.IsRegular()) || w.prune[name] {
			continue
		}
		child := walkEntry{path: prefix + name, rel: name, name: name, isDir: isDir}
		if rel != "" {
			child.rel = rel + "/" + name
		}
		verdict := verdictNone
		if w.override != nil {
			verdict = w.override(child.rel, name, isDir)
		}
		if verdict == verdictIgnore ||
			(verdict == verdictNone && frame != nil && frame.ignored(child.path, name, isDir)) {
			continue
		}
		err := visit(child)
		if isDir && err == fs.SkipDir {
			continue
		}
		if err != nil {
			return err
		}
		if isDir {
			if err := w.walkDir(ctx, child.path, child.rel, frame, visit); err != nil {
				return err
			}
		}
	}
	return nil
}
