package runplan

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/kimi-run/kimi-run/sandbox"
	"github.com/kimi-run/kimi-run/tools/mcp"
)

// Trust is what the user's configuration says of the MCP servers the sandbox may leave
// unconfined.
type Trust struct {
	// Names are the servers [sandbox] trusted_mcp_servers names; NamedIn is the file that
	// says so ("" for text given on the command line).
	Names   []string
	NamedIn string
	// DefinedIn is the mcp.json file each server's entry comes from, by name.
	DefinedIn map[string]string
}

// ConfineServers decides which stdio MCP servers run confined: under a sandbox, every one,
// like a Shell command, but those trust names. A trust is believed only when neither the
// file that names the server nor the mcp.json that defines it lies in the work dir or an
// --add-dir, where a confined command (of this run, or of an earlier one) may have written
// it; a trust not believed is a warning. No guess is made from the server's command,
// arguments or environment.
func (s *Plan) ConfineServers(servers []mcp.Server, trust Trust, warn func(string)) []mcp.Server {
	if !s.policy.Active() {
		return servers
	}
	out := make([]mcp.Server, len(servers))
	for i, srv := range servers {
		if srv.Transport == mcp.Stdio {
			srv.Confine = !s.trusted(srv.Name, trust, warn)
		}
		out[i] = srv
	}
	return out
}

// trusted reports whether the server name may run unconfined, warning when its trust
// comes from a file a confined command may have written.
func (s *Plan) trusted(name string, trust Trust, warn func(string)) bool {
	if !slices.Contains(trust.Names, name) {
		return false
	}
	for _, f := range []string{trust.NamedIn, trust.DefinedIn[name]} {
		if f != "" && s.underWorkDirs(f) {
			warn(fmt.Sprintf("MCP server %q runs confined although trusted: %s lies in the work dir or an --add-dir, which the run's commands may write; name the server in sandbox.trusted_mcp_servers, and define it, in files outside them (~/.kimi/config.toml and ~/.kimi/mcp.json, say)", name, f))
			return false
		}
	}
	return true
}

// underWorkDirs reports whether path (its links resolved) lies beneath the work dir or an
// --add-dir, whatever this run's mode lets commands write there. A path that cannot be
// resolved counts as beneath.
func (s *Plan) underWorkDirs(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return true
	}
	var outside *sandbox.DeniedError
	return !errors.As(sandbox.Policy{Mode: sandbox.WorkspaceWrite, Writable: s.policy.Writable}.CanWrite(abs), &outside)
}
