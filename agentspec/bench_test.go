package agentspec

import "testing"

// BenchmarkBuiltinDefault is the start-up cost of the default agent: resolving the embedded
// files and rendering the root's and the subagents' prompts. After the first iteration the
// built-in YAML is decoded already (once per process), so this is the warm cost.
func BenchmarkBuiltinDefault(b *testing.B) {
	vars := builtinVars()
	for b.Loop() {
		s, err := Builtin("default")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.SystemPrompt(vars); err != nil {
			b.Fatal(err)
		}
		for _, sub := range s.Subagents {
			if _, err := sub.Spec.SystemPrompt(vars); err != nil {
				b.Fatal(err)
			}
		}
	}
}
