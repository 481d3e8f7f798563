//go:build unix

package background

import (
	"testing"
	"time"
)

// BenchmarkTask is a background task's whole life for `true`: its folder, output file and
// record, its start (here from kimi-run itself, without the launcher process), its end
// seen, its record rewritten, its notice and events made. docs/performance.md has figures.
func BenchmarkTask(b *testing.B) {
	m := &Manager{Dir: b.TempDir(), WorkDir: b.TempDir(), Config: Defaults()}
	for b.Loop() {
		task, err := m.Start(shell("true", "bench"))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := m.Wait(b.Context(), task.ID, time.Minute); err != nil {
			b.Fatal(err)
		}
		m.TakeNotices()
	}
}
