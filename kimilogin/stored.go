package kimilogin

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Limits of StoredTokens: a credentials folder holds a handful of small files.
const (
	maxStoredFiles = 64
	maxStoredBytes = 64 << 10
)

// StoredTokens returns the access and refresh tokens of every login stored in dir (the
// share dir's credentials folder: one <name>.json per login), whether or not a run uses
// it: each is a secret a command could print (cat ~/.kimi/credentials/kimi-code.json).
// Files that are not token files, and a missing dir, are passed over; so are files past
// the first 64, and what lies past a file's first 64 KiB.
func StoredTokens(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	n := 0
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") || !e.Type().IsRegular() {
			continue
		}
		if n++; n > maxStoredFiles {
			break
		}
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		b, err := io.ReadAll(io.LimitReader(f, maxStoredBytes))
		f.Close()
		var t Token
		if err != nil || json.Unmarshal(b, &t) != nil {
			continue
		}
		for _, v := range []string{t.AccessToken, t.RefreshToken} {
			if v != "" {
				out = append(out, v)
			}
		}
	}
	return out
}
