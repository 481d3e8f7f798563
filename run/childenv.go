package run

import (
	"slices"
	"strings"

	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/internal/scrub"
)

// childEnviron is the environment of every process the run starts: Shell commands, hooks
// and stdio MCP servers. It is environ without kimi-run's credentials: the variables it
// reads keys from (config.CredentialVars; a command that prints its environment would
// otherwise hand the key to the model, issue 17 #7), and any other variable whose value
// holds one of its own secrets (a config.toml api_key exported under another name, a
// login token). A variable named in pass is kept all the same; an MCP server's own "env"
// entries are set on top of this.
func childEnviron(environ []string, secrets *scrub.Set, pass []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		if !slices.Contains(pass, k) && (slices.Contains(config.CredentialVars, k) || secrets.HasOwn(v)) {
			continue
		}
		out = append(out, kv)
	}
	return out
}
