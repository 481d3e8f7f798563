package config

import (
	"slices"
	"strings"

	"github.com/kimi-run/kimi-run/agentspec"
)

// resolveAgent loads the agent of the run: --agent, --agent-file, or the built-in default.
// Its prompts are rendered when the run knows the workspace (agentspec.Spec.Setup).
func (s *Settings) resolveAgent() error {
	f := &s.Flags
	var err error
	switch {
	case f.AgentFile != "":
		s.Agent, err = agentspec.Load(f.AgentFile)
	case f.Agent != "":
		if !slices.Contains(agentspec.Builtins, f.Agent) {
			return Usagef("--agent %q: the built-in agents are %s", f.Agent, strings.Join(agentspec.Builtins, ", "))
		}
		s.Agent, err = agentspec.Builtin(f.Agent)
	default:
		s.Agent, err = agentspec.Builtin("default")
	}
	if err != nil {
		return Usagef("%w", err)
	}
	return nil
}
