package runplan

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

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
// arguments or environment. The dirs of a confined server's program and its working dir
// stay in sight where the commands get a /tmp of their own (keepInSight).
func (s *Plan) ConfineServers(servers []mcp.Server, trust Trust, warn func(string)) []mcp.Server {
	if !s.policy.Active() {
		return servers
	}
	out := make([]mcp.Server, len(servers))
	for i, srv := range servers {
		if srv.Transport == mcp.Stdio {
			if srv.Confine = !s.trusted(srv.Name, trust, warn); srv.Confine {
				s.keepInSight(srv)
			}
		}
		out[i] = srv
	}
	if l := s.launcher.Load(); l != nil {
		l.Policy.Readable = s.policy.Readable // before any server starts
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

// keepInSight adds the dirs a confined stdio server needs to read to the policy's Readable:
// its program's dir and its working dir, where they lie outside the work dirs (which stay
// in sight anyway); so that a /tmp of the commands' own does not hide them. The program
// is found as the launcher will find it.
func (s *Plan) keepInSight(srv mcp.Server) {
	prog := srv.Command
	if !strings.Contains(prog, "/") {
		prog, _ = exec.LookPath(prog)
	} else if !filepath.IsAbs(prog) && srv.Dir != "" {
		prog = filepath.Join(srv.Dir, prog)
	}
	dirs := []string{srv.Dir}
	if prog != "" {
		dirs = append(dirs, filepath.Dir(prog))
	}
	for _, dir := range dirs {
		if abs, err := filepath.Abs(dir); err == nil && dir != "" && !s.underWorkDirs(abs) && !slices.Contains(s.policy.Readable, abs) {
			s.policy.Readable = append(s.policy.Readable, abs)
		}
	}
}
