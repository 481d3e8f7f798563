package output

import (
	"io"

	"github.com/kimi-run/kimi-run/event"
)

// Final is the sink of --output-format json: stdout gets one JSON object when the run ends,
// the top-level result event exactly as stream-json's last line (so `jq -r .final_text`
// reads the answer), and every event also goes to a progress sink (text progress on
// stderr). It is safe for concurrent use when the progress sink is.
type Final struct {
	progress Sink
	result   *JSON
}

// NewFinal returns a sink that writes the result to stdout and reports to progress.
func NewFinal(stdout io.Writer, progress Sink) *Final {
	return &Final{progress: progress, result: NewJSON(stdout)}
}

// Emit passes e to the progress sink and, for the run's result, writes it to stdout.
func (f *Final) Emit(e event.Event) {
	f.progress.Emit(e)
	if e.Type() == event.TypeResult && e.Parent == "" {
		f.result.Emit(e)
	}
}

// Err returns the first error met writing the result to stdout.
func (f *Final) Err() error {
	if err := f.result.Err(); err != nil {
		return err
	}
	return f.progress.Err()
}
