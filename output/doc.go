// Package output turns the agent's events into what a user or a script reads.
//
// Four sinks implement event.Sink, one for each output format:
//
//   - JSON (--output-format stream-json) writes one NDJSON object per event on stdout.
//   - Text (the default) writes only the final answer on stdout and readable progress
//     lines on stderr through zerolog's console writer.
//   - Final (--output-format json) writes the result event alone on stdout and passes
//     every event to a Text sink for progress on stderr.
//   - Kimi (--print --output-format stream-json) writes Kimi CLI's print-mode message
//     lines on stdout and warnings on stderr.
//
// What run/ must do with any of them:
//
//  1. Build it once per run and hand it to the agent and the flow runner as their Sink.
//     Emit is safe for concurrent use, so parallel tool calls may share it.
//  2. Emit exactly one top-level result event (Parent empty), last, on every outcome:
//     success, limits, errors and signals. The sinks drop every event that follows it, so
//     the result is always the last line. A result with a Parent (a subagent's) does not
//     end the stream.
//  3. After the run, call Err. A non-nil error means stdout could not be written (a closed
//     pipe, a full disk): the output is incomplete. Nothing is buffered, so there is nothing
//     to flush or close.
//
// Every sink writes each line with a single Write call, so an interrupted process never
// leaves half a line behind. The Text sink logs progress at zerolog's info level and
// detail at debug level; run/ must not raise zerolog's global level above info, or the
// progress disappears (use TextOptions.Quiet and TextOptions.Verbose instead).
package output

import "github.com/kimi-run/kimi-run/event"

// Sink is what run/ holds: an event sink that can report a failed stdout.
type Sink interface {
	event.Sink
	// Err returns the first error met writing stdout, or nil.
	Err() error
}
