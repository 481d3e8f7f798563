package kimilogin

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// DefaultHost is the Kimi OAuth host Kimi CLI refreshes its login at; KIMI_CODE_OAUTH_HOST
// (or KIMI_OAUTH_HOST) replaces it, as in Kimi CLI.
const DefaultHost = "https://auth.kimi.com"

// DefaultClientID is the public OAuth client id of Kimi CLI's login (auth/oauth.py): the
// refresh token was issued to it, so only it can refresh the token.
const DefaultClientID = "17e5f671-d194-4dfb-9706-5516cb48c098"

// Source hands out the access token of one stored login, refreshing it when it is near
// its expiry. It is safe for concurrent use.
type Source struct {
	// Path is the token file (see FileName); the lock file is beside it.
	Path string
	// Host is the OAuth host (DefaultHost when empty); the token endpoint is
	// Host/api/oauth/token.
	Host     string
	ClientID string // DefaultClientID when empty
	// Headers are sent with the refresh request (Kimi CLI's X-Msh-* device headers).
	Headers map[string]string
	// HTTP is the client for the refresh request (http.DefaultClient when nil).
	HTTP *http.Client
	// Now and Sleep default to the real clock; tests inject them.
	Now   func() time.Time
	Sleep func(context.Context, time.Duration) error
	// Attempts is how often a refresh is tried when the host fails transiently (429, 5xx,
	// network); 3 when 0, as in Kimi CLI.
	Attempts int
	// LockWait bounds the wait for another process's refresh (10 s when 0).
	LockWait time.Duration
	// Warn, when set, is told what went wrong that the run survives.
	Warn func(string)
	// Seen, when set, is told every token read from the file or obtained by a refresh,
	// before it is used: the run scrubs its access and refresh tokens from all it writes.
	Seen func(Token)

	mu     sync.Mutex
	cached Token
	// force: the provider refused the cached token; refresh even if the file says fresh.
	// forced is the token that was refused, so that one 401 forces one refresh.
	force  bool
	forced string
}

func (s *Source) seen(t Token) {
	if s.Seen != nil {
		s.Seen(t)
	}
}

func (s *Source) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Source) sleep(ctx context.Context, d time.Duration) error {
	if s.Sleep != nil {
		return s.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// AccessToken returns an access token that is good for a while yet, refreshing the stored
// login first when it is near its expiry. Errors wrap ErrNoLogin, ErrExpired or ErrRefresh.
func (s *Source) AccessToken(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if s.cached.fresh(now) {
		return s.cached.AccessToken, nil
	}
	t, err := load(s.Path)
	if err != nil {
		return "", err
	}
	s.seen(t)
	if t.fresh(now) && !(s.force && t.AccessToken == s.forced) {
		s.force = false
		s.cached = t
		return t.AccessToken, nil
	}
	s.force = false
	t, err = s.refreshLocked(ctx, t)
	if err != nil {
		return "", err
	}
	s.cached = t
	return t.AccessToken, nil
}

// Rejected is told that the provider refused token (HTTP 401): the next AccessToken
// refreshes the login even if it looks fresh, once, as Kimi CLI forces a refresh after a 401.
// It reports whether a refresh will be tried (false when token is not the current one, or
// was itself just refreshed).
func (s *Source) Rejected(token string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if token == "" || s.cached.AccessToken != token || s.forced == token {
		return false
	}
	s.forced = token
	s.cached = Token{}
	s.force = true
	return true
}

// refreshLocked refreshes t under the cross-process lock. Another process may have
// refreshed while this one waited: then its token is used, and the refresh token it
// replaced is never sent (the host would refuse a used one).
func (s *Source) refreshLocked(ctx context.Context, t Token) (Token, error) {
	unlock, err := lockFile(ctx, strings.TrimSuffix(s.Path, filepath.Ext(s.Path))+".lock", s.lockWait(), s.sleep)
	if err != nil {
		return Token{}, fmt.Errorf("%w: lock: %w", ErrRefresh, err)
	}
	defer unlock()
	if again, err := load(s.Path); err == nil {
		s.seen(again)
		if again.RefreshToken != t.RefreshToken || (again.fresh(s.now()) && again.AccessToken != s.forced) {
			return again, nil
		}
		t = again
	}
	if t.RefreshToken == "" {
		return Token{}, fmt.Errorf("%w: the stored login has no refresh token; run `kimi login` again", ErrExpired)
	}
	nt, err := s.refresh(ctx, t.RefreshToken)
	if err != nil {
		if errors.Is(err, ErrRefresh) && t.valid(s.now()) {
			return t, nil // the old token still works for now; the next run tries again
		}
		return Token{}, err
	}
	s.seen(nt) // before the file holds it, where a command could read it
	if err := save(s.Path, nt); err != nil {
		// The new token works for this run, but the old refresh token is spent: say so.
		if s.Warn != nil {
			s.Warn(fmt.Sprintf("the refreshed Kimi login could not be saved to %s (%v); the next run will need `kimi login` again", s.Path, err))
		}
	}
	return nt, nil
}

func (s *Source) lockWait() time.Duration {
	if s.LockWait > 0 {
		return s.LockWait
	}
	return 10 * time.Second
}

// refresh trades the refresh token for a new token at the host's token endpoint.
func (s *Source) refresh(ctx context.Context, refreshToken string) (Token, error) {
	host := strings.TrimRight(firstNonEmpty(s.Host, DefaultHost), "/")
	conf := &oauth2.Config{
		ClientID: firstNonEmpty(s.ClientID, DefaultClientID),
		Endpoint: oauth2.Endpoint{TokenURL: host + "/api/oauth/token", AuthStyle: oauth2.AuthStyleInParams},
	}
	client := s.HTTP
	if client == nil {
		client = http.DefaultClient
	}
	client = &http.Client{Transport: headerTransport{base: client.Transport, headers: s.Headers}, Timeout: 30 * time.Second}
	ctx = context.WithValue(ctx, oauth2.HTTPClient, client)
	attempts := max(s.Attempts, 3)
	if s.Attempts > 0 {
		attempts = s.Attempts
	}
	var last error
	for i := range attempts {
		if i > 0 {
			if err := s.sleep(ctx, time.Duration(1<<(i-1))*time.Second); err != nil {
				return Token{}, fmt.Errorf("%w: %w", ErrRefresh, err)
			}
		}
		ot, err := conf.TokenSource(ctx, &oauth2.Token{RefreshToken: refreshToken}).Token()
		if err == nil {
			return s.fromOAuth(ot, refreshToken), nil
		}
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && re.Response != nil {
			code := re.Response.StatusCode
			switch {
			case code == http.StatusUnauthorized || code == http.StatusForbidden || re.ErrorCode == "invalid_grant":
				return Token{}, fmt.Errorf("%w (the OAuth host refused the refresh token: HTTP %d%s); run `kimi login` again, or use an API key",
					ErrExpired, code, describe(re))
			case code != http.StatusTooManyRequests && code < 500:
				return Token{}, fmt.Errorf("%w: HTTP %d%s", ErrRefresh, code, describe(re))
			}
			last = fmt.Errorf("HTTP %d%s", code, describe(re))
			continue
		}
		if ctx.Err() != nil {
			return Token{}, fmt.Errorf("%w: %w", ErrRefresh, ctx.Err())
		}
		last = errors.Unwrap(err) // the transport's error, without the library's prefix
		if last == nil {
			last = err
		}
	}
	return Token{}, fmt.Errorf("%w after %d attempts: %v", ErrRefresh, attempts, last)
}

// describe is the host's error code and description, for messages; never the body.
func describe(re *oauth2.RetrieveError) string {
	var parts []string
	for _, p := range []string{re.ErrorCode, re.ErrorDescription} {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	d := strings.Join(parts, ": ")
	if len(d) > 200 {
		d = d[:200] + "…"
	}
	return ", " + d
}

// fromOAuth stores a token response as Kimi CLI stores it. A response without a new
// refresh token keeps the old one.
func (s *Source) fromOAuth(ot *oauth2.Token, oldRefresh string) Token {
	now := s.now()
	t := Token{AccessToken: ot.AccessToken, RefreshToken: firstNonEmpty(ot.RefreshToken, oldRefresh), TokenType: ot.TokenType}
	if sc, ok := ot.Extra("scope").(string); ok {
		t.Scope = sc
	}
	if ot.ExpiresIn > 0 {
		t.ExpiresIn = float64(ot.ExpiresIn)
		t.ExpiresAt = float64(now.Add(time.Duration(ot.ExpiresIn)*time.Second).UnixNano()) / float64(time.Second)
	} else if !ot.Expiry.IsZero() {
		t.ExpiresIn = ot.Expiry.Sub(now).Seconds()
		t.ExpiresAt = float64(ot.Expiry.UnixNano()) / float64(time.Second)
	}
	return t
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// headerTransport adds fixed headers to every request.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (h headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := h.base
	if base == nil {
		base = http.DefaultTransport
	}
	if len(h.headers) == 0 {
		return base.RoundTrip(req)
	}
	req = req.Clone(req.Context())
	for k, v := range h.headers {
		req.Header.Set(k, v)
	}
	return base.RoundTrip(req)
}
