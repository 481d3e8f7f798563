package run

import (
	"context"
	"encoding/json"

	"github.com/kimi-run/kimi-run/internal/scrub"
	"github.com/kimi-run/kimi-run/tools"
)

// scrubbed is a tool whose output reaches the model without kimi-run's credentials. The
// commands never get the keys in their environment (childEnviron), but a command can
// still read one from a file (cat ~/.kimi/config.toml); the model has no use for it.
type scrubbed struct {
	tools.Tool
	secrets *scrub.Set
}

// scrubTools wraps ts so that their output is scrubbed of the registered secrets.
func scrubTools(ts []tools.Tool, secrets *scrub.Set) []tools.Tool {
	out := make([]tools.Tool, len(ts))
	for i, t := range ts {
		out[i] = scrubbed{Tool: t, secrets: secrets}
	}
	return out
}

func (s scrubbed) Run(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	res, err := s.Tool.Run(ctx, args)
	res.Output = s.secrets.String(res.Output)
	return res, err
}
