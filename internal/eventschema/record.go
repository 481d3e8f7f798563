package eventschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// RecordEnv names the environment variable that makes Validate keep every line it judged:
// set to a directory, each test process appends the JSON lines it accepted to
// accepted-PID.ndjson there and the ones it refused to refused-PID.ndjson. CI sets it for
// the test run and then has ajv judge the same lines (.ci/ajv), so the Go validator and
// ajv must agree on every stream the end-to-end tests produced, not only the goldens.
const RecordEnv = "KIMI_RUN_EVENTS_RECORD"

var (
	recordMu    sync.Mutex
	recordFiles = map[string]*os.File{} // by path: a test may point RecordEnv elsewhere
	recordOff   bool
)

// record appends line to the accepted or refused file of RecordEnv's directory. Lines that
// are not JSON are left out: ajv only ever sees parsed values. A failure to write is
// reported once on stderr and recording stops; it never fails the test that validated.
func record(line []byte, accepted bool) {
	dir := os.Getenv(RecordEnv)
	if dir == "" || !json.Valid(line) {
		return
	}
	name := "refused"
	if accepted {
		name = "accepted"
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%d.ndjson", name, os.Getpid()))
	recordMu.Lock()
	defer recordMu.Unlock()
	if recordOff {
		return
	}
	f := recordFiles[path]
	if f == nil {
		var err error
		f, err = os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			recordOff = true
			fmt.Fprintf(os.Stderr, "eventschema: not recording lines: %v\n", err)
			return
		}
		recordFiles[path] = f
	}
	// Compact keeps one value per line even when a test validated an indented object.
	var buf bytes.Buffer
	_ = json.Compact(&buf, line) // cannot fail: json.Valid said yes
	buf.WriteByte('\n')
	if _, err := f.Write(buf.Bytes()); err != nil {
		recordOff = true
		fmt.Fprintf(os.Stderr, "eventschema: not recording lines: %v\n", err)
	}
}
