package config

import (
	"cmp"
	"context"
	"strings"
)

// Resolve reads the flags, the environment and the files into the run's Settings. It
// always returns what it resolved so far, so that a run stopped by a usage error still
// reports the way the flags ask and scrubs the keys it found; the first problem found is
// the error (a *UsageError for anything the user can fix). f is not changed. Reading the
// files it names stops with ctx's cause when ctx ends (a signal, --timeout).
func Resolve(ctx context.Context, f Flags, env Env) (*Settings, error) {
	s := &Settings{Flags: f, Env: env, Output: OutputOf(&f), Ralph: f.Ralph, Session: f.Session}
	s.envSecrets()
	s.Prompt, s.PromptGiven = f.Prompt, f.Given("prompt")
	if f.Command != nil {
		s.Prompt, s.PromptGiven = strings.TrimSpace(*f.Command), true
	}
	if f.Flow != "" && f.fromFile("ralph") {
		s.Ralph = 0 // the file's Ralph iterations are not for a flow, which brings its own graph
	}
	s.StdinTimeout = f.StdinTimeout
	if !f.Given("stdin-timeout") && onCI(env) {
		s.StdinTimeout = CIStdinTimeout
	}
	if err := f.Conflict(); err != nil {
		return s, err
	}
	if err := checkKimi(&f); err != nil {
		return s, err
	}
	if err := checkFlagValues(&f); err != nil {
		return s, err
	}
	if f.src != nil && len(f.src.problems) > 0 {
		return s, f.src.problems[0]
	}
	// A replay brings its endpoint and model, before the file and the environment.
	baseURL, model := f.BaseURL, f.Model
	replayURL, replayModel, replaying, err := s.loadReplay(ctx)
	if err != nil {
		return s, err
	}
	if replaying {
		baseURL, model = replayURL, cmp.Or(model, replayModel)
	}
	fc, err := f.configFile(env)
	if err != nil {
		return s, err
	}
	s.fileSecrets(fc)
	s.serviceSecrets(fc)
	if f.Config != "" {
		if w := inlineWarning(fc); w != "" {
			s.Warnings = append(s.Warnings, w)
		}
	}
	entry, err := s.resolveEndpoint(fc, baseURL, model)
	if err != nil {
		return s, err
	}
	_, _, mainFound, _ := fc.model(cmp.Or(model, fc.DefaultModel))
	if replaying && s.Replay.Header.Provider != "" {
		// The recorded requests speak the recorded protocol, whatever the file says now.
		s.Endpoint.Protocol = s.Replay.Header.Provider
	}
	s.resolveProviderKeys(fc, entry.Provider)
	s.Warnings = append(s.Warnings, kimiKeyWarnings(fc)...)
	s.Warnings = append(s.Warnings, envWarnings(s.Env)...)
	steps := []func() error{
		func() error { return s.resolveFileSettings(fc) },
		func() error { return s.resolveServices(fc) },
		func() error { s.resolvePlugins(ctx); return nil },
		func() error { return s.resolveLoop(fc.LoopControl) },
		func() error { return s.resolveBackground(fc.Background) },
		s.resolveContext,
		func() error { return s.resolveBudget(entry) },
		s.checkEndpoint,
		func() error { return s.resolveFallbacks(fc, entry, mainFound) },
		s.resolveWorkDir,
		func() error { return s.resolveMCP(ctx, fc) },
		func() error { s.mcpSecrets(); return nil },
		s.resolveAgent,
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return s, err
		}
	}
	return s, nil
}

// OutputOf is how a run with these flags reports: --log-level, or Kimi's --debug (debug) and
// --verbose (info, the default). It never fails: a usage error is reported this way too.
func OutputOf(f *Flags) Output {
	o := Output{Format: f.OutputFormat, LogLevel: f.LogLevel}
	if !f.Given("log-level") {
		switch {
		case f.Debug:
			o.LogLevel = "debug"
		case f.Verbose:
			o.LogLevel = "info"
		}
	}
	// warn and error keep only what went wrong: no MCP servers' chatter either.
	o.Quiet = f.Quiet || o.LogLevel == "warn" || o.LogLevel == "error"
	return o
}

// onCI reports whether the CI variable says so, as GitHub Actions, GitLab CI, CircleCI,
// Travis, Buildkite and most others set it (CI=true; some use 1).
func onCI(env Env) bool {
	switch strings.ToLower(strings.TrimSpace(env.Getenv("CI"))) {
	case "true", "1", "yes":
		return true
	}
	return false
}
