package run

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/internal/launch"
	"github.com/kimi-run/kimi-run/internal/launch/launcher"
	"github.com/kimi-run/kimi-run/internal/scrub"
	"github.com/kimi-run/kimi-run/output"
	"github.com/kimi-run/kimi-run/sandbox"
)

// start opens what every run has, even one that stops on a usage error at once: the
// redacting streams, the one sink chain, the telemetry, the launcher. ctx is the run's
// (the stopper's: signals and --timeout); the returned one also ends with a diverging
// replay.
func start(ctx context.Context, s *config.Settings, sio IO, stop *stopper, version string, started time.Time) (*runState, context.Context) {
	f := &s.Flags
	// Scrub every credential the run knows of from both streams, before anything is
	// written.
	secrets := &scrub.Set{}
	secrets.Add(s.Endpoint.APIKey)
	secrets.Add(s.Secrets.Own...)
	secrets.AddOther(s.Secrets.Others...)
	// Then from this process's own environment and command line (/proc/self/environ and
	// cmdline), where a command could read them.
	forms := secrets.Forms()
	hideErr := sio.self.Hide(forms, func(name string) bool { return slices.Contains(config.CredentialVars, name) })
	if len(forms) == 0 {
		hideErr = nil // nothing was there to hide
	}
	stdout, stderr := newRedactWriter(sio.Stdout, secrets), newRedactWriter(sio.Stderr, secrets)
	rawStderr := sio.Stderr
	sio.Stdout, sio.Stderr = stdout, stderr
	if s.Output.NDJSON() {
		// stderr has only kimi-run's plain lines here, never colour: neutralize all of it.
		sio.Stderr = output.NeutralWriter(stderr)
	}
	r := &runState{s: s, version: version, sio: sio, started: started, secrets: secrets,
		tape: newTape(s), cred: credentials{apiKey: s.Endpoint.APIKey}, stop: stop,
		answerFile: f.OutputLastMessage, scrub: stdout.scrub}
	// OpenTelemetry, when an OTLP endpoint is set: it watches every event, and its last
	// export (bounded) is the last thing the run does.
	r.tel, r.telWarnings = startTelemetry(s, version, secrets)
	if r.tel != nil {
		r.res.add(func() { stopTelemetry(r.tel, sio.Stderr, secrets) })
	}
	r.sink = r.newSink(rawStderr)
	if hideErr != nil {
		r.warnEarly(fmt.Sprintf("the API key could not be hidden from this process's /proc/%d/environ and cmdline (%v): a command of the same user can read it there", os.Getpid(), hideErr))
	}
	// The stopper's last word, should it have to write the result: what the run knows.
	render := func(v verdict) ([]byte, []byte) {
		res := r.tally.Totals()
		res.DurationMS = time.Since(started).Milliseconds()
		return renderResult(f, s.Output, secrets, v, res)
	}
	stop.render.Store(&render)
	// The launcher starts every child of the run, and ends what they leave running when
	// the run ends, however it ends (SIGKILL included); its process starts with the first
	// child. Its close runs after the result, the MCP servers' shutdown and the background
	// groups'. Its environment and sandbox are set once they are known (execute).
	r.launch = &launch.Launcher{Keep: f.KeepBackground, NoCgroup: s.Env.Getenv("KIMI_RUN_CGROUP") == "off"}
	r.launch.Process = launcher.New(sandbox.SelfExe, r.launch)
	r.res.add(r.launch.Close)

	ctx = r.tape.bind(ctx)
	r.res.add(r.tape.close)
	return r, ctx
}

// newSink builds the run's one sink chain, outermost first: the replay's step tracker
// (a divergence names its step), the telemetry, the stall notice, the terminal filter
// (text for a person only), the output format's sink.
func (r *runState) newSink(rawStderr io.Writer) output.Sink {
	f, sio := &r.s.Flags, r.sio
	sink := formatSink(f, r.s.Output, sio.Stdout, sio.Stderr, colorOK(rawStderr, r.s.Env))
	var noticeTo io.Writer // in stream-json mode stdout is for events; a person reads stderr
	if r.s.Output.NDJSON() {
		noticeTo = sio.Stderr
	} else {
		// Text for a person: no terminal control from tool output or the model.
		sink = output.TerminalSafe(sink)
	}
	sink = output.NewStallWatch(sink, f.StallNotice, f.StreamIdleTimeout, noticeTo)
	if r.tel != nil {
		sink = telemetrySink{Sink: sink, t: r.tel}
	}
	r.tally = &output.Tally{Sink: sink}
	return r.tape.track(r.tally)
}

// formatSink is the sink of the output format f asks for, writing to stdout and stderr.
func formatSink(f *config.Flags, o config.Output, stdout, stderr io.Writer, color bool) output.Sink {
	textOpts := output.TextOptions{
		Quiet:    f.Quiet,
		MinLevel: o.LogLevel,
		Color:    color,
		Verbose:  o.LogLevel == "debug",
		// Under --json-schema stdout carries only the JSON that matched it.
		JSONOnly:   f.JSONSchema != "",
		SessionDir: f.SessionDir,
		WaitScale:  replayWaits(f),
	}
	switch {
	case f.KimiMessages():
		return output.NewKimi(stdout, stderr, output.KimiOptions{FinalOnly: f.FinalMessageOnly})
	case o.NDJSON():
		return output.NewJSON(stdout)
	case o.Format == "json":
		// One JSON object on stdout at the end, the progress of text mode on stderr.
		return output.NewFinal(stdout, output.NewText(io.Discard, stderr, textOpts))
	}
	return output.NewText(stdout, stderr, textOpts)
}

// warnEarly reports a warning found before init. The NDJSON stream must open with init, so
// there it waits for it (and reaches stderr at once, since one of them says what the run
// is waiting for); elsewhere it is emitted at once.
func (r *runState) warnEarly(msg string) {
	if r.s.Output.NDJSON() {
		fmt.Fprintf(r.sio.Stderr, "kimi-run: %s\n", msg)
		if !r.s.Flags.KimiMessages() { // that sink writes warnings to stderr itself
			r.early = append(r.early, msg)
		}
		return
	}
	r.warn(msg)
}
