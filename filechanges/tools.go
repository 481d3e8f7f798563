package filechanges

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/kimi-run/kimi-run/tools"
)

// Wrap watches the calls of ts that may change files: the file tools' by their path
// argument, commands' and MCP servers' by the snapshot before the first of them.
func (t *Tracker) Wrap(ts []tools.Tool) []tools.Tool {
	out := make([]tools.Tool, len(ts))
	for i, tool := range ts {
		out[i] = tool
		f := tool.Facts()
		switch {
		case f.ReadOnly:
		case f.Where == tools.InProcess && f.WritesFiles && f.PathArg != "":
			out[i] = watched{Tool: tool, t: t, pathArg: f.PathArg}
		case f.Where != tools.InProcess:
			out[i] = watched{Tool: tool, t: t, command: true}
		}
	}
	return out
}

// watched is a tool whose calls the tracker sees before they run.
type watched struct {
	tools.Tool
	t       *Tracker
	pathArg string
	command bool
}

// Run implements tools.Tool.
func (w watched) Run(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	if w.command {
		w.t.beforeCommand(ctx)
	} else if p := pathArgument(args, w.pathArg, w.t.workDir); p != "" {
		w.t.remember(p)
	}
	return w.Tool.Run(ctx, args)
}

// pathArgument is the file a call's path argument names, as the file tools resolve it, or
// "" when there is none.
func pathArgument(args json.RawMessage, key, workDir string) string {
	var fields map[string]json.RawMessage
	var p string
	if json.Unmarshal(args, &fields) != nil || json.Unmarshal(fields[key], &p) != nil || strings.TrimSpace(p) == "" {
		return ""
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		p = filepath.Join(home, p[1:])
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(workDir, p)
	}
	return realPath(p)
}
