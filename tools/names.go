package tools

import "strings"

// Older or alternative names users write for our tools: the key is accepted wherever a
// person names a tool (agent files, hook matchers, allow-lists) and means the value.
var toolAliases = map[string]string{
	"Task": "Agent", // Kimi CLI called its subagent tool Task before it became Agent
}

// CanonicalName turns a tool name as a user writes it into the name the tool is offered
// under. Kimi CLI's Python paths lose their module ("kimi_cli.tools.shell:Shell" is
// Shell) and old names become current ones (Task is Agent). Other names come back
// trimmed but unchanged, so the caller can tell that no such tool exists.
func CanonicalName(name string) string {
	name = strings.TrimSpace(name)
	if i := strings.LastIndexByte(name, ':'); i >= 0 {
		name = name[i+1:]
	}
	if c, ok := toolAliases[name]; ok {
		return c
	}
	return name
}

// NameAliases returns the other names by which users may refer to the tool name, so
// that a hook matcher written for "Task" still sees Agent calls.
func NameAliases(name string) []string {
	var out []string
	for alias, canonical := range toolAliases {
		if canonical == name {
			out = append(out, alias)
		}
	}
	return out
}
