package search

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

// rgSecretGlobs keep rg away from the files Sensitive flags, so their contents are
// never read. rg's --glob cannot re-include, so ".env.*" also excludes the harmless
// ".env.example" that the pure-Go engine searches; results are filtered with Sensitive
// as well in case the two lists drift apart.
var rgSecretGlobs = []string{
	".env", ".env.*", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519",
	"*.pem", "*.key", "*.p12", "*.pfx",
	".netrc", "_netrc", ".pgpass", ".npmrc", ".pypirc", "credentials", "credentials.json",
	".git-credentials", "**/.docker/config.json",
}

// rgTypeName is the private rg type that carries the query's type globs.
const rgTypeName = "kimirunsel"

// ripgrepArgs builds the rg command line for a query searching target.
func (g *Grep) ripgrepArgs(target string) []string {
	q := &g.q
	args := append([]string{"--json"}, rgCommonArgs...)
	for _, g := range rgSecretGlobs {
		args = append(args, "--iglob", "!"+g)
	}
	if q.IncludeIgnored {
		args = append(args, "--no-ignore")
	}
	if q.IgnoreCase {
		args = append(args, "--ignore-case")
	}
	if q.Multiline {
		args = append(args, "--multiline", "--multiline-dotall")
	}
	if q.Mode == Content {
		args = append(args, "--before-context", strconv.Itoa(q.Before), "--after-context", strconv.Itoa(q.After))
	}
	if q.Mode == FilesWithMatches {
		args = append(args, "--max-count", "1")
	}
	if q.Glob != "" {
		args = append(args, "--glob", q.Glob)
	}
	if len(g.typeGlobs) > 0 {
		for _, tg := range g.typeGlobs {
			args = append(args, "--type-add", rgTypeName+":"+tg)
		}
		args = append(args, "--type", rgTypeName)
	}
	return append(args, "--regexp", q.Pattern, "--", target)
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
func (g *Grep) searchRipgrep(ctx context.Context, opts Options, root string, isDir bool, col *collector) (*skips, error) {
	sk := &skips{}
	dir, target := root, "."
	if !isDir {
		dir, target = filepath.Dir(root), filepath.Base(root)
	}
	keep := g.keep()
	var cur *File
	var curPath string
	emit := func(num int, text []byte, match bool) {
		if g.q.Mode != Content {
			cur.units = 1
			return
		}
		for i, line := range splitRgLines(text) {
			cur.units++
			if len(cur.Lines) < keep {
				cur.Lines = append(cur.Lines, Line{Num: num + i, Text: lineText(line), Match: match})
			}
		}
	}
	err := runRipgrep(ctx, opts, dir, g.ripgrepArgs(target), func(r *bufio.Reader) error {
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
					cur = &File{Path: DisplayPath(opts.WorkDir, curPath)}
				case "match":
					if g.q.Mode == CountMatches {
						cur.Matches += len(m.Data.Submatches)
					}
					emit(m.Data.LineNumber, m.Data.Lines.value(), true)
				case "context":
					emit(m.Data.LineNumber, m.Data.Lines.value(), false)
				case "end":
					finishRgFile(cur, curPath, col, sk)
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
	return sk, err
}

// finishRgFile hands a file rg has finished to the collector, unless it matched nothing
// or looks like it holds secrets.
func finishRgFile(f *File, path string, col *collector, sk *skips) {
	if f == nil || f.units == 0 {
		return
	}
	if reason, secret := col.secret(path); secret {
		sk.secrets = append(sk.secrets, Skip{Path: f.Path, Reason: reason})
		return
	}
	if info, err := os.Stat(path); err == nil {
		f.ModTime = info.ModTime()
	}
	col.add(f)
}

// splitRgLines splits the text of an rg message into lines without their line breaks.
func splitRgLines(text []byte) [][]byte {
	text = bytes.TrimSuffix(text, []byte{'\n'})
	return bytes.Split(text, []byte{'\n'})
}
