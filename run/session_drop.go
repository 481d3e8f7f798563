package run

import (
	"path/filepath"

	"github.com/kimi-run/kimi-run/internal/beneath"
)

// dropIfNew removes the session this run created when the run stops on a usage error
// found after the session was opened (a tool rule naming no MCP tool, an MCP server down
// under --mcp-strict, a cassette that cannot be written): the run never started, and an
// empty session would only be noise for --continue and for whoever reads the directory.
// A resumed session is left alone. It reports whether the session was dropped: the run
// then has none, so finishing it neither syncs nor records an outcome in a directory that
// is gone (issue 25 #5: two stray warnings came before the usage error).
func (p *sessionPlan) dropIfNew() bool {
	if p.session == nil || p.restored != nil || p.lost != "" {
		return false
	}
	release := p.release
	p.release = nil
	p.close()
	beneath.RemoveAllPath(filepath.Join(p.root, p.id))
	if release != nil {
		release()
	}
	*p = sessionPlan{}
	return true
}
