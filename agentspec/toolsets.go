package agentspec

import (
	"slices"

	"github.com/kimi-run/kimi-run/tools"
)

// toolSets are the sets of built-in tools that the built-in agent files name as "@SET"
// entries of a tool list, chosen by the tools' own facts, so a new tool joins the built-in
// agents with no edit of their files. User files do not have them: there "@SET" is a tool
// name like any other (and none has it).
var toolSets = map[string]func(tools.Facts) bool{
	// every built-in but the opt-in ones (SendDMail): the default agent
	"@builtin": func(f tools.Facts) bool { return !f.OptIn },
	// those that change nothing: the explore and plan subagents
	"@builtin-read-only": func(f tools.Facts) bool { return !f.OptIn && f.ReadOnly },
}

// builtinTools returns the names of the built-in tools whose facts are in the set, in the
// order of the built-in table.
func builtinTools(in func(tools.Facts) bool) []string {
	var out []string
	for _, t := range tools.AllBuiltins() {
		if in(t.Facts()) {
			out = append(out, t.Name())
		}
	}
	return out
}

// withoutRootOnly drops from a subagent's tool list the built-in tools only a root agent
// may have (Agent, SendDMail: tools.Facts.RootOnly), so delegation cannot nest and a
// subagent cannot rewind its parent. nil stays nil (no allowed_tools: no restriction).
func withoutRootOnly(names []string) []string {
	if names == nil {
		return nil
	}
	root := map[string]bool{}
	for _, t := range tools.AllBuiltins() {
		root[t.Name()] = t.Facts().RootOnly
	}
	return slices.DeleteFunc(slices.Clone(names), func(n string) bool { return root[n] })
}
