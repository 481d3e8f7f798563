package run

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/internal/launch"
	"github.com/kimi-run/kimi-run/output"
	"github.com/kimi-run/kimi-run/sandbox"
)

// start opens what every run has, even one that stops on a usage error at once: the
// redacting streams, the one sink chain, the telemetry, the launcher, the signals and the
// --timeout. The returned context ends with a signal, the timeout or a diverging replay.
func start(s *config.Settings, sio IO, version string, started time.Time) (*runState, context.Context) {
	f := &s.Flags
	jsonMode := f.OutputFormat == "stream-json"
	// Scrub the keys from both streams, before anything is written: those in the
	// environment and those of the config file.
	secrets := &secretSet{}
	for _, k := range credentialVars {
		secrets.add(s.Env.Getenv(k))
	}
	secrets.add(s.Endpoint.APIKey)
	for _, k := range s.Endpoint.ConfigKeys {
		secrets.add(k)
	}
	stdout, stderr := newRedactWriter(sio.Stdout, secrets), newRedactWriter(sio.Stderr, secrets)
	rawStderr := sio.Stderr
	sio.Stdout, sio.Stderr = stdout, stderr
	if jsonMode {
		// stderr has only kimi-run's plain lines here, never colour: neutralize all of it.
		sio.Stderr = neutralWriter{stderr}
	}
	r := &runState{s: s, version: version, sio: sio, jsonMode: jsonMode, started: started, secrets: secrets,
		tape: newTape(s), secret: s.Endpoint.APIKey, keep: f.KeepBackground,
		answerFile: f.OutputLastMessage, answerJSON: f.JSONSchema != "", scrub: stdout.scrub}
	// OpenTelemetry, when an OTLP endpoint is set: it watches every event, and its last
	// export (bounded) is the last thing the run does.
	r.tel, r.telWarnings = startTelemetry(s, version, secrets)
	if r.tel != nil {
		r.res.add(func() { stopTelemetry(r.tel, sio.Stderr, secrets) })
	}
	r.sink = r.newSink(rawStderr)
	// The launcher starts every child of the run, and ends what they leave running when
	// the run ends, however it ends (SIGKILL included); its process starts with the first
	// child. Its close runs after the result, the MCP servers' shutdown and the background
	// groups'. Its environment and sandbox are set once they are known (execute).
	r.launch = &launch.Launcher{Exe: sandbox.SelfExe, Keep: f.KeepBackground, NoCgroup: s.Env.Getenv("KIMI_RUN_CGROUP") == "off"}
	r.res.add(r.launch.Close)

	sio.Exit = r.shellKill.wrap(r.mcpKill.wrap(sio.Exit))
	ctx, stop := withSignals(context.Background(), sio)
	r.res.add(stop)
	if f.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, f.Timeout, errTimeout)
		r.res.add(cancel)
	}
	ctx = r.tape.bind(ctx)
	r.res.add(r.tape.close)
	return r, ctx
}

// newSink builds the run's one sink chain, outermost first: the replay's step tracker
// (a divergence names its step), the telemetry, the stall notice, the terminal filter
// (text for a person only), the output format's sink.
func (r *runState) newSink(rawStderr io.Writer) output.Sink {
	f, sio := &r.s.Flags, r.sio
	textOpts := output.TextOptions{
		Quiet:    f.Quiet,
		MinLevel: r.s.Output.LogLevel,
		Color:    colorOK(rawStderr, r.s.Env),
		Verbose:  r.s.Output.LogLevel == "debug",
		// Under --json-schema stdout carries only the JSON that matched it.
		JSONOnly:  f.JSONSchema != "",
		WaitScale: replayWaits(f),
	}
	var sink output.Sink
	switch {
	case f.KimiMessages():
		sink = output.NewKimi(sio.Stdout, sio.Stderr, output.KimiOptions{FinalOnly: f.FinalMessageOnly})
	case r.jsonMode:
		sink = output.NewJSON(sio.Stdout)
	case f.OutputFormat == "json":
		// One JSON object on stdout at the end, the progress of text mode on stderr.
		sink = output.NewFinal(sio.Stdout, output.NewText(io.Discard, sio.Stderr, textOpts))
	default:
		sink = output.NewText(sio.Stdout, sio.Stderr, textOpts)
	}
	var noticeTo io.Writer // in stream-json mode stdout is for events; a person reads stderr
	if r.jsonMode {
		noticeTo = sio.Stderr
	} else {
		// Text for a person: no terminal control from tool output or the model.
		sink = terminalSafe{sink}
	}
	sink = newStallWatch(sink, f.StallNotice, f.StreamIdleTimeout, noticeTo)
	if r.tel != nil {
		sink = telemetrySink{Sink: sink, t: r.tel}
	}
	return r.tape.track(sink)
}

// warnEarly reports a warning found before init. The NDJSON stream must open with init, so
// there it waits for it (and reaches stderr at once, since one of them says what the run
// is waiting for); elsewhere it is emitted at once.
func (r *runState) warnEarly(msg string) {
	if r.jsonMode {
		fmt.Fprintf(r.sio.Stderr, "kimi-run: %s\n", msg)
		if !r.s.Flags.KimiMessages() { // that sink writes warnings to stderr itself
			r.early = append(r.early, msg)
		}
		return
	}
	r.warn(msg)
}
