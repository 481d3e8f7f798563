// Package kimilogin reads and refreshes the OAuth login that Kimi CLI's `kimi login` stores,
// so that a provider configured by it (`oauth = { storage = "file", key = "oauth/kimi-code" }`,
// no api_key) works in kimi-run too.
//
// The token lives in <share dir>/credentials/<name>.json (name: the key's last path segment),
// with Kimi CLI's fields. A token near its expiry is refreshed with its refresh token at
// the Kimi OAuth host, under an exclusive lock on <name>.lock beside it, and written back
// atomically, so that two runs (two cron jobs, or kimi-run and Kimi CLI) never both spend
// the same refresh token. A refresh the host refuses means the login has expired for good:
// ErrExpired. Tokens never appear in errors.
package kimilogin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/kimi-run/kimi-run/internal/atomicfile"
	"github.com/kimi-run/kimi-run/internal/infile"
)

// The problems a login can have. ErrNoLogin and ErrExpired are the user's to fix (run
// `kimi login` again, or use an API key); ErrRefresh is temporary.
var (
	ErrNoLogin = errors.New("no stored Kimi login")
	ErrExpired = errors.New("the Kimi login has expired")
	ErrRefresh = errors.New("the Kimi login could not be refreshed")
)

// Token is the stored login, with Kimi CLI's field names. ExpiresAt is in Unix seconds.
type Token struct {
	AccessToken  string  `json:"access_token"`
	RefreshToken string  `json:"refresh_token"`
	ExpiresAt    float64 `json:"expires_at"`
	Scope        string  `json:"scope"`
	TokenType    string  `json:"token_type"`
	ExpiresIn    float64 `json:"expires_in"`
}

// Refresh thresholds, as Kimi CLI's: a token is refreshed once less than half its lifetime,
// and never less than five minutes, is left.
const (
	minRefreshLead   = 5 * time.Minute
	refreshLeadRatio = 0.5
)

// fresh reports whether t can be used at now without a refresh.
func (t Token) fresh(now time.Time) bool {
	if t.AccessToken == "" || t.ExpiresAt == 0 {
		return false
	}
	lead := minRefreshLead
	if byRatio := time.Duration(t.ExpiresIn * refreshLeadRatio * float64(time.Second)); byRatio > lead {
		lead = byRatio
	}
	return t.expiry().Sub(now) >= lead
}

// valid reports whether t's access token has not expired yet at now.
func (t Token) valid(now time.Time) bool {
	return t.AccessToken != "" && t.ExpiresAt != 0 && now.Before(t.expiry())
}

func (t Token) expiry() time.Time {
	return time.Unix(0, int64(t.ExpiresAt*float64(time.Second)))
}

// FileName is the file a login key is stored in, as Kimi CLI names it: the key without its
// "oauth/" prefix, last path segment, with .json.
func FileName(key string) string {
	name := strings.TrimPrefix(key, "oauth/")
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	if name == "" {
		name = key
	}
	return name + ".json"
}

// load reads the token file at path.
func load(path string) (Token, error) {
	b, err := infile.Read(context.Background(), path, infile.Login)
	if errors.Is(err, fs.ErrNotExist) {
		return Token{}, fmt.Errorf("%w: %s does not exist (run `kimi login`, or set KIMI_API_KEY)", ErrNoLogin, path)
	}
	if err != nil {
		return Token{}, fmt.Errorf("%w: %w", ErrNoLogin, err)
	}
	var t Token
	if err := json.Unmarshal(b, &t); err != nil {
		// The parser's message may quote the file: say only where it is.
		return Token{}, fmt.Errorf("%w: %s is not a JSON token file", ErrNoLogin, path)
	}
	return t, nil
}

// save writes t to path, private (0600), with atomicfile's guarantee: a reader (Kimi CLI,
// another run) sees the old token or the new, never half.
func save(path string, t Token) error {
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, b, 0o600)
}
