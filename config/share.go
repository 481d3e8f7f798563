package config

import "path/filepath"

// ShareDir is Kimi CLI's data folder, the one place kimi-run looks for Kimi's files
// (config.toml, mcp.json, the stored login): $KIMI_SHARE_DIR, else ~/.kimi; "" without a
// HOME.
func ShareDir(env Env) string {
	if share := env.Getenv("KIMI_SHARE_DIR"); share != "" {
		return share
	}
	if home := env.Getenv("HOME"); home != "" {
		return filepath.Join(home, ".kimi")
	}
	return ""
}

// ShareFile is the file name in the share dir; "" when there is no share dir.
func ShareFile(env Env, name string) string {
	share := ShareDir(env)
	if share == "" {
		return ""
	}
	return filepath.Join(share, name)
}
