package config

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/kimi-run/kimi-run/internal/infile"
	"github.com/kimi-run/kimi-run/kimilogin"
)

// A provider written by Kimi CLI's `kimi login` has no api_key but an oauth reference; its
// token is stored under the share dir (kimilogin); the run uses it when it starts.

// loginSource is the stored login prov names, or nil when it names none. Kimi CLI reads
// the file for both storages ("keyring" logins are migrated to the file by Kimi itself).
func loginSource(prov providerConfig, env Env) *kimilogin.Source {
	if prov.OAuth == nil || strings.TrimSpace(prov.OAuth.Key) == "" {
		return nil
	}
	share := ShareDir(env)
	if share == "" {
		return nil
	}
	s := &kimilogin.Source{
		Path: filepath.Join(share, "credentials", kimilogin.FileName(prov.OAuth.Key)),
		Host: firstSet(env.Getenv("KIMI_CODE_OAUTH_HOST"), env.Getenv("KIMI_OAUTH_HOST")),
	}
	s.Headers = map[string]string{"X-Msh-Platform": "kimi_cli"}
	// Kimi CLI identifies its device to the OAuth host; its device id is reused when it
	// exists, never created.
	if b, err := infile.Read(context.Background(), filepath.Join(share, "device_id"), infile.Login); err == nil && strings.TrimSpace(string(b)) != "" {
		s.Headers["X-Msh-Device-Id"] = strings.TrimSpace(string(b))
	}
	return s
}
