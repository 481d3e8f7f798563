package config

import (
	"context"
	"path/filepath"

	"github.com/kimi-run/kimi-run/tools/plugin"
)

// resolvePlugins finds Kimi CLI's plugins in the share dir's plugins/ (what `kimi plugin
// install` fills): their tools are offered to the agents, and the directory is searched for
// skills after extra_skill_dirs, as Kimi CLI searches it. A plugin that cannot be used is a
// warning, never a failed run. --bare reads none.
func (s *Settings) resolvePlugins(ctx context.Context) {
	share := ShareDir(s.Env)
	if share == "" || s.Flags.Bare { // --bare: nothing the machine holds
		return
	}
	dir := filepath.Join(share, "plugins")
	specs, warnings := plugin.Find(ctx, dir)
	s.Plugins = specs
	s.Warnings = append(s.Warnings, warnings...)
	s.Skills.ExtraDirs = append(s.Skills.ExtraDirs, dir)
}
