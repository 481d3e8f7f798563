package testkit

import (
	"os"
	"testing"
)

// Golden compares the file at path with got, what its generator makes today; with update
// set (a test's -update flag) it writes got there first. A difference fails t, saying how
// to refresh the file (refresh, e.g. "go generate ./tools").
func Golden(t testing.TB, path string, got []byte, update bool, refresh string) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (%s creates it)", err, refresh)
	}
	if string(got) != string(want) {
		t.Fatalf("%s is stale: %s, after reviewing the change", path, refresh)
	}
}
