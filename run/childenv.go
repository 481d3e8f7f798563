package run

import (
	"slices"
	"strings"
)

// credentialVars are the variables kimi-run reads its API key from. They never reach a
// command, a hook or an MCP server unless --pass-env names them: a command that prints its
// environment would otherwise hand the key to the model (issue 17 #7).
var credentialVars = []string{"KIMI_API_KEY", "OPENAI_API_KEY"}

// childEnviron is the environment of every process the run starts: Shell commands, hooks
// and stdio MCP servers. It is environ without kimi-run's credentials: the variables it
// reads keys from, and any other variable whose value holds a registered secret (a
// config.toml api_key exported under another name, a login token). A variable named in
// pass is kept all the same; an MCP server's own "env" entries are set on top of this.
func childEnviron(environ []string, secrets *secretSet, pass []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		if !slices.Contains(pass, k) && (slices.Contains(credentialVars, k) || secrets.has(v)) {
			continue
		}
		out = append(out, kv)
	}
	return out
}
