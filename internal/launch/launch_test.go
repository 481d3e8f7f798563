package launch

import (
	"os"
	"strings"
	"testing"
)

// TestEnvironmentRule: a child's environment is the launcher's with the Spec's on top, one
// entry per name, the later winning; without a launcher environment, this process's.
func TestEnvironmentRule(t *testing.T) {
	got := mergeEnv([]string{"A=1", "B=2", "A=3"}, []string{"B=x", "C=y", "KIMI_API_KEY=mine"})
	if strings.Join(got, " ") != "A=3 B=x C=y KIMI_API_KEY=mine" {
		t.Errorf("mergeEnv = %q", got)
	}
	if got := mergeEnv([]string{"A=1"}, nil); strings.Join(got, " ") != "A=1" {
		t.Errorf("mergeEnv without extra = %q", got)
	}
	var l *Launcher
	if got := l.environ(); len(got) != len(os.Environ()) {
		t.Errorf("a nil launcher's environment has %d entries, want this process's %d", len(got), len(os.Environ()))
	}
}
