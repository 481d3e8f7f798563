package eventschema

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestRecordKeepsWhatItJudged: with KIMI_RUN_EVENTS_RECORD set, the lines Validate accepted
// and refused land in two files for ajv to judge again; a line that is not JSON in neither.
func TestRecordKeepsWhatItJudged(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(RecordEnv, dir)
	t.Cleanup(func() { closeRecords(dir) })

	good := `{"type":"warning","ts":"2026-01-02T03:04:05.250Z","message":"m"}`
	bad := "{\"type\": \"warning\",\n \"message\": \"m\"}"
	if err := Validate([]byte(good)); err != nil {
		t.Fatal(err)
	}
	if err := Validate([]byte(bad)); err == nil {
		t.Fatal("a line without ts was accepted")
	}
	if err := Validate([]byte(`{"type":`)); err == nil {
		t.Fatal("a line that is not JSON was accepted")
	}

	read := func(name string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%s-%d.ndjson", name, os.Getpid())))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if got, want := read("accepted"), good+"\n"; got != want {
		t.Errorf("accepted file = %q, want %q", got, want)
	}
	if got, want := read("refused"), `{"type":"warning","message":"m"}`+"\n"; got != want {
		t.Errorf("refused file = %q, want %q", got, want)
	}
}

// closeRecords closes the files of dir, so a test can remove it.
func closeRecords(dir string) {
	recordMu.Lock()
	defer recordMu.Unlock()
	for path, f := range recordFiles {
		if filepath.Dir(path) == filepath.Clean(dir) {
			f.Close()
			delete(recordFiles, path)
		}
	}
}
