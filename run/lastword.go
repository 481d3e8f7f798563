package run

import (
	"bytes"
	"fmt"
	"time"

	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/scrub"
)

// renderResult writes the result for v, with what res holds (session, totals, duration), as
// the output format f asks for would: the bytes for stdout and for stderr, scrubbed of the
// secrets. It is the stopper's last word, written when the run could not write its own.
func renderResult(f *config.Flags, o config.Output, secrets *scrub.Set, v verdict, res event.Result) (stdout, stderr []byte) {
	res.Status, res.TerminalReason, res.ExitCode, res.Error = "error", v.reason, int(v.code), v.err
	if v.code == ExitOK {
		res.Status = "success"
	}
	var out, errOut bytes.Buffer
	if o.NDJSON() && res.Error != nil {
		// As finish does: stdout stays NDJSON, a person reading the log still sees why.
		fmt.Fprintf(&errOut, "kimi-run: %s\n", res.Error.Message)
	}
	formatSink(f, o, &out, &errOut, false).Emit(event.Event{Time: time.Now(), Data: res})
	if secrets == nil {
		return out.Bytes(), errOut.Bytes()
	}
	return secrets.Bytes(out.Bytes()), secrets.Bytes(errOut.Bytes())
}
