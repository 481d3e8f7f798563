package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
)

// rgSecretGlobs keep rg away from the files sensitive() flags, so their contents are
// never read. rg's --glob cannot re-include, so ".env.*" also excludes the harmless
// ".env.example" that the pure-Go engine searches; results are filtered with sensitive()
// as well in case the two lists drift apart.
var rgSecretGlobs = []string{
	".env", ".env.*", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519",
	"*.pem", "*.key", "*.p12", "*.pfx",
	".netrc", "_netrc", ".pgpass", ".npmrc", ".pypirc", "credentials", "credentials.json",
	".git-credentials", "**/.docker/config.json",
}

// rgTypeName is the private rg type that carries the type argument's globs.
const rgTypeName = "kimirunsel"

// ripgrepArgs builds the rg command line for a query searching target.
func ripgrepArgs(q *grepQuery, target string) []string {
	args := append([]string{"--json"}, rgCommonArgs...)
	for _, g := range rgSecretGlobs {
		args = append(args, "--iglob", "!"+g)
	}
	if q.ignoreCase {
		args = append(args, "--ignore-case")
	}
	if q.multiline {
		args = append(args, "--multiline", "--multiline-dotall")
	}
	if q.mode == grepContent {
		args = append(args, "--before-context", strconv.Itoa(q.before), "--after-context", strconv.Itoa(q.after))
	}
	if q.mode == grepFiles {
		args = append(args, "--max-count", "1")
	}
	if q.glob != "" {
		args = append(args, "--glob", q.glob)
	}
	if len(q.typeGlobs) > 0 {
		for _, g := range q.typeGlobs {
			args = append(args, "--type-add", rgTypeName+":"+g)
		}
		args = append(args, "--type", rgTypeName)
	}
	return append(args, "--regexp", q.pattern, "--", target)
}

// rgMessage is one line of `rg --json` output; only the fields used here are decoded.
type rgMessage struct {
	Type string `json:"type"`
	Data struct {
		Path       rgData     `json:"path"`
		Lines      rgData     `json:"lines"`
		LineNumber int        `json:"line_number"`
		Submatches []struct{} `json:"submatches"`
	} `json:"data"`
}

// rgData is text that rg sends as UTF-8 "text" or, when it is not valid UTF-8, as
// base64 "bytes".
type rgData struct {
	Text  *string `json:"text"`
	Bytes *string `json:"bytes"`
}

func (d rgData) value() []byte {
	switch {
	case d.Text != nil:
		return []byte(*d.Text)
	case d.Bytes != nil:
		b, _ := base64.StdEncoding.DecodeString(*d.Bytes)
		return b
	}
	return nil
}

// searchRipgrep runs the query with rg and feeds its results to the collector. The
// output is parsed and shaped here so that both engines print the same thing.
func (g *grepper) searchRipgrep(ctx context.Context, q *grepQuery, root string, isDir bool, col *grepCollector) (*grepSkips, error) {
	skips := &grepSkips{}
	dir, target := root, "."
	if !isDir {
		dir, target = filepath.Dir(root), filepath.Base(root)
	}
	keep := q.keep()
	var cur *grepFile
	var curPath string
	emit := func(num int, text []byte, match bool) {
		if q.mode != grepContent {
			cur.units = 1
			return
		}
		for i, line := range splitRgLines(text) {
			cur.units++
			if len(cur.lines) < keep {
				cur.lines = append(cur.lines, grepLine{num: num + i, text: lineText(line), match: match})
			}
		}
	}
	err := runRipgrep(ctx, g.env.Ripgrep, dir, ripgrepArgs(q, target), func(r *bufio.Reader) error {
		for {
			raw, err := r.ReadBytes('\n')
			if len(raw) > 0 {
				var m rgMessage
				if jerr := json.Unmarshal(raw, &m); jerr != nil {
					return fmt.Errorf("read rg output: %w", jerr)
				}
				switch m.Type {
				case "begin":
					curPath = filepath.Join(dir, filepath.FromSlash(string(m.Data.Path.value())))
					cur = &grepFile{path: displayPath(g.env.WorkDir, curPath)}
				case "match":
					cur.matches += len(m.Data.Submatches)
					emit(m.Data.LineNumber, m.Data.Lines.value(), true)
				case "context":
					emit(m.Data.LineNumber, m.Data.Lines.value(), false)
				case "end":
					g.finishRgFile(cur, curPath, col, skips)
					cur = nil
				}
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
		}
	})
	var exitErr *ripgrepExitError
	if errors.As(err, &exitErr) && col.totalFiles > 0 {
		err = nil // some files could not be read; the others were searched
	}
	return skips, err
}

// finishRgFile hands a file rg has finished to the collector, unless it matched nothing
// or looks like it holds secrets.
func (g *grepper) finishRgFile(f *grepFile, path string, col *grepCollector, skips *grepSkips) {
	if f == nil || f.units == 0 {
		return
	}
	if reason, secret := sensitive(path); secret {
		skips.secrets = append(skips.secrets, grepSkip{path: f.path, reason: reason})
		return
	}
	if info, err := os.Stat(path); err == nil {
		f.mtime = info.ModTime()
	}
	col.add(f)
}

// splitRgLines splits the text of an rg message into lines without their line breaks.
func splitRgLines(text []byte) [][]byte {
	text = bytes.TrimSuffix(text, []byte{'\n'})
	return bytes.Split(text, []byte{'\n'})
}
