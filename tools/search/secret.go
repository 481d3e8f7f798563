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

// SensitiveFile is Sensitive for a file as opening it would reach it: the path as named,
// then the path it resolves to through symbolic links. A link named notes.txt to .env, or
// a path through a link to ~/.aws, is refused like the file it leads to.
func SensitiveFile(path string) (reason string, ok bool) {
	if reason, ok := Sensitive(path); ok {
		return reason, true
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil || real == filepath.Clean(path) {
		return "", false
	}
	if reason, ok := Sensitive(real); ok {
		return "it leads to " + real + " through a symbolic link, and " + reason, true
	}
	return "", false
}

// sensitiveBelow is the check for the files a search of root finds. Neither engine follows
// a link below root, but root itself, or a directory above it, may be one (a link to ~/.aws
// in the work dir): a file is then judged by its real path too, root's real path joined
// with the file's path below root.
func sensitiveBelow(root string) func(path string) (string, bool) {
	real, err := filepath.EvalSymlinks(root)
	if err != nil || real == filepath.Clean(root) {
		return Sensitive
	}
	base := strings.TrimSuffix(filepath.ToSlash(filepath.Clean(root)), "/") + "/"
	realBase := strings.TrimSuffix(filepath.ToSlash(real), "/") + "/"
	return func(path string) (string, bool) {
		if reason, ok := Sensitive(path); ok {
			return reason, true
		}
		p := filepath.ToSlash(path)
		if !strings.HasPrefix(p, base) {
			return SensitiveFile(path)
		}
		if reason, ok := Sensitive(realBase + p[len(base):]); ok {
			return "it lies below " + real + " through a symbolic link, and " + reason, true
		}
		return "", false
	}
}
