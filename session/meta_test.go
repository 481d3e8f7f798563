package session

import (
	"testing"
	"time"
)

// TestWriteMetaVisible checks that the start record can be read by anyone as soon as
// WriteMetaVisible returns, before its sync, and is the same after it.
func TestWriteMetaVisible(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	m := Meta{ID: "s1", Created: now, Started: now, Outcome: OutcomeRunning, Prompt: "fix it", Runs: 1}
	if err := WriteMeta(dir, Meta{ID: "s1", Created: now, Outcome: "completed", Runs: 0}); err != nil {
		t.Fatal(err)
	}
	sync, err := WriteMetaVisible(dir, m)
	if err != nil {
		t.Fatal(err)
	}
	for _, when := range []string{"before the sync", "after the sync"} {
		got, err := ReadMeta(dir)
		if err != nil || got.ID != m.ID || got.Outcome != OutcomeRunning || got.Prompt != "fix it" || got.Runs != 1 || !got.Started.Equal(now) {
			t.Errorf("%s: %+v, %v", when, got, err)
		}
		if when == "before the sync" {
			if err := sync(); err != nil {
				t.Fatal(err)
			}
		}
	}
}
