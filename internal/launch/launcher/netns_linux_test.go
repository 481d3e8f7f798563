package launcher

import (
	"os"
	"testing"
)

// BenchmarkNetNSProbe is what --allow-host adds to a run's start to learn whether its
// commands can have a network namespace of their own: one start of kimi-run's image in a
// user and network namespace, which brings loopback up and exits.
func BenchmarkNetNSProbe(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := NetNSWorks(exe); err != nil {
			b.Skipf("no network namespace here: %v", err)
		}
	}
}
