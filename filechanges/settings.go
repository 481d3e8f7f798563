package filechanges

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"path/filepath"
	"slices"
)

// What git obeys in the CI job's later steps and a confined command may still write: the
// repository's config, hooks and info/ (attributes, exclude, sparse-checkout). Confined
// commands may write .git so that they can commit; the tracker tells the run's end when
// one of these changed (GitSettings).
var gitSettings = []string{"config", "hooks", "info"}

// settings digests the git settings of the repositories holding dirs: each file's content
// by its path.
func settings(dirs []string) map[string]string {
	out := map[string]string{}
	for _, d := range dirs {
		top, _, objects, ok := findRepo(d)
		if !ok {
			continue
		}
		for _, name := range gitSettings {
			filepath.WalkDir(filepath.Join(filepath.Dir(objects), name), func(p string, e fs.DirEntry, err error) error {
				if err != nil || e.IsDir() {
					return nil
				}
				sum := "link"
				if e.Type().IsRegular() {
					// Read as the tracker reads a file: no link followed, no FIFO waited on.
					if b, err := readSmall(p, []string{top}, 64<<20); err == nil {
						h := sha256.Sum256(b)
						sum = hex.EncodeToString(h[:])
					}
				}
				out[p] = sum
				return nil
			})
		}
	}
	return out
}

// changedSettings lists the paths whose digest differs between before and now, sorted.
func changedSettings(before, now map[string]string) []string {
	var out []string
	for p, sum := range now {
		if before[p] != sum {
			out = append(out, p)
		}
	}
	for p := range before {
		if _, ok := now[p]; !ok {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}
