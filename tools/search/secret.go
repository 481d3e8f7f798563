package search

import (
	"path/filepath"
	"strings"
)

// Sensitive reports whether path names a file that likely holds secrets (environment
// files, private keys, credential stores), and why. Such files are never read into the
// model's context: what the model reads is sent to a remote provider.
func Sensitive(path string) (reason string, ok bool) {
	p := filepath.ToSlash(filepath.Clean(path))
	base := strings.ToLower(filepath.Base(p))
	switch base {
	case ".env.example", ".env.sample", ".env.template", ".env.dist":
		return "", false
	}
	switch {
	case base == ".env" || strings.HasPrefix(base, ".env."):
		return "it is an environment file, which usually holds secrets", true
	case base == "id_rsa" || base == "id_dsa" || base == "id_ecdsa" || base == "id_ed25519":
		return "it is an SSH private key", true
	case strings.HasSuffix(base, ".pem") || strings.HasSuffix(base, ".key") ||
		strings.HasSuffix(base, ".p12") || strings.HasSuffix(base, ".pfx"):
		return "it looks like a private key or certificate bundle", true
	case base == ".netrc" || base == "_netrc" || base == ".pgpass" || base == ".npmrc" ||
		base == ".pypirc" || base == "credentials" || base == "credentials.json" ||
		base == ".git-credentials":
		return "it is a credentials file", true
	case strings.HasSuffix(p, "/.aws/credentials") || strings.HasSuffix(p, "/.docker/config.json"):
		return "it is a credentials file", true
	}
	return "", false
}
