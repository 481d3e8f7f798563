package config

import (
	"context"

	"github.com/kimi-run/kimi-run/model/cassette"
)

// loadReplay checks the record and replay flags and reads the replay's cassette. A replay
// takes its endpoint and model from the cassette and needs no key: it returns the
// recorded base URL (which beats --base-url: nothing is ever sent there, but error
// messages quoting the URL read as recorded) and model (which --model beats).
func (s *Settings) loadReplay(ctx context.Context) (baseURL, model string, replaying bool, err error) {
	f := &s.Flags
	switch {
	case f.ReplaySpeed < 0:
		return "", "", false, Usagef("--replay-speed must not be negative")
	case f.Replay == "" && (f.ReplayMode != "strict" || f.ReplaySpeed != 1):
		return "", "", false, Usagef("--replay-mode and --replay-speed need --replay FILE")
	case f.Replay == "":
		return "", "", false, nil
	}
	c, err := cassette.Load(ctx, f.Replay)
	if err != nil {
		return "", "", false, Usagef("--replay: %w", err)
	}
	s.Replay = c
	return c.Header.BaseURL, c.Header.Model, true, nil
}
