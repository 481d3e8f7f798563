// Package sandbox confines the commands an agent runs, with Linux Landlock and a seccomp
// filter for what Landlock does not see (sockets other than TCP, extended attributes).
//
// kimi-run's own process is never restricted: it must keep writing its session file and
// talking to the model. The run's confined children instead come from a launcher process
// (internal/launch) that confines itself with Confine before it starts any, so the
// children and everything they start inherit the restrictions, which cannot be lifted.
// The file tools run inside kimi-run, so they check the same policy themselves
// (Policy.CanWrite) and write through Policy.OpenDir, which follows no symbolic link a
// racing command could swap in.
//
// On other systems, and on Linux kernels without Landlock, Check fails: a run that asked
// for a sandbox never goes on without one.
package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Mode is how much of the file system sandboxed commands may change.
type Mode string

// The modes. Reading is allowed everywhere in every mode.
const (
	// Off leaves the file system alone (the network may still be cut).
	Off Mode = "off"
	// ReadOnly lets commands write only in the run's temp dir.
	ReadOnly Mode = "read-only"
	// WorkspaceWrite also lets them write in the work dir and the extra dirs.
	WorkspaceWrite Mode = "workspace-write"
)

// SelfExe names the running kimi-run image on Linux. A launcher started through it runs
// the executable kimi-run started from, even after the file at its path was replaced.
const SelfExe = "/proc/self/exe"

// Policy is what sandboxed commands may do.
type Policy struct {
	Mode Mode `json:"mode"`
	// Writable are the directories writable under WorkspaceWrite: the work dir and the
	// --add-dir dirs. Absolute paths.
	Writable []string `json:"writable,omitempty"`
	// TempDir is the run's own temp dir, writable in every mode that restricts the file
	// system; commands see it as TMPDIR.
	TempDir string `json:"tmp,omitempty"`
	// NoNetwork forbids TCP connect and bind (Landlock) and every socket but AF_UNIX ones
	// (seccomp).
	NoNetwork bool `json:"no_network,omitempty"`
	// ProxyPort, with NoNetwork, is the one TCP port commands may connect to (--allow-host):
	// the run's proxy on 127.0.0.1, or, with ProxySocket, the confined arm's relay to it.
	// The filter then lets them make TCP sockets (IPv4 and IPv6), never UDP or raw ones,
	// and refuses TCP Fast Open's connect-in-sendto. 0: none.
	ProxyPort int `json:"proxy_port,omitempty"`
	// ProxySocket, when set, is the proxy's Unix socket, and asks for a network namespace:
	// the confined arm starts in one of its own, with only loopback, and relays
	// 127.0.0.1:ProxyPort there to the socket. No other host is reachable from it on any
	// port, the proxy's included.
	ProxySocket string `json:"proxy_socket,omitempty"`
	// Namespaces asks for a user and mount namespace for the confined arm, and for its
	// children a process namespace with a /proc of their own and, when the file system is
	// restricted, every mount read-only but the writable roots and a /tmp of their own
	// (internal/launch). Each one the machine refuses is left out with a warning; Landlock
	// and the seccomp filter confine the commands either way.
	Namespaces bool `json:"ns,omitempty"`
	// NSOmit are the parts of Namespaces the run leaves out (KIMI_RUN_NS lists them): each
	// is treated as the machine's refusal of it, warned of and done without.
	NSOmit []string `json:"ns_omit,omitempty"`
	// Home is the user's home directory, which stays readable where the commands get a
	// /tmp of their own and it lies in the shared temp dir.
	Home string `json:"home,omitempty"`
	// Readable are more directories that stay readable there: those of the confined stdio
	// MCP servers' programs, and their working directories.
	Readable []string `json:"readable,omitempty"`
}

// Proxy reports whether commands reach the network through the run's proxy only.
func (p Policy) Proxy() bool { return p.NoNetwork && p.ProxyPort > 0 }

// proxyEnv are the variables that point HTTP clients at a proxy, and the ones that would
// send some hosts past it (which the sandbox would then refuse).
var proxyEnv = []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"}
var noProxyEnv = []string{"NO_PROXY", "no_proxy"}

// Active reports whether the policy restricts anything.
func (p Policy) Active() bool {
	return p.restrictsFiles() || p.NoNetwork
}

// RestrictsFiles reports whether the policy restricts writes to the file system.
func (p Policy) RestrictsFiles() bool { return p.restrictsFiles() }

func (p Policy) restrictsFiles() bool {
	return p.Mode == ReadOnly || p.Mode == WorkspaceWrite
}

// WritableRoots are the directories sandboxed commands may write below.
func (p Policy) WritableRoots() []string {
	if !p.restrictsFiles() {
		return nil
	}
	var roots []string
	if p.Mode == WorkspaceWrite {
		roots = append(roots, p.Writable...)
	}
	if p.TempDir != "" {
		roots = append(roots, p.TempDir)
	}
	return roots
}

// devices are the character devices commands may always write: redirecting to /dev/null
// must keep working.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full"}

// ErrUnsupported means this system cannot enforce the policy asked for.
var ErrUnsupported = errors.New("the sandbox is not available")

// Check reports whether this system can enforce p. The error wraps ErrUnsupported and says
// what is missing.
func Check(p Policy) error {
	if !p.Active() {
		return nil
	}
	return check(p)
}

// Encode is the policy as one argument for a launcher process (ParsePolicy reads it).
func (p Policy) Encode() (string, error) {
	spec, err := json.Marshal(p)
	if err != nil {
		return "", fmt.Errorf("encode sandbox policy: %w", err)
	}
	return string(spec), nil
}

// DeniedError is a write the policy does not allow.
type DeniedError struct {
	Path  string
	Roots []string
}

func (e *DeniedError) Error() string {
	if len(e.Roots) == 0 {
		return fmt.Sprintf("the sandbox allows no writes here, and %s is outside", e.Path)
	}
	return fmt.Sprintf("the sandbox allows writes only below %s, and %s is outside", strings.Join(e.Roots, ", "), e.Path)
}

// CanWrite reports whether the file tools may write path (absolute). Symbolic links are
// resolved first, the file's own included, so a link inside the work dir cannot lead a write
// outside it. Like the kernel's rule, it judges the real location of the file.
func (p Policy) CanWrite(path string) error {
	if !p.restrictsFiles() {
		return nil
	}
	real, err := realPath(path)
	if err != nil {
		return fmt.Errorf("sandbox: resolve %s: %w", path, err)
	}
	roots := p.WritableRoots()
	for _, root := range roots {
		r, err := realPath(root)
		if err != nil {
			continue
		}
		if within(real, r) {
			return nil
		}
	}
	return &DeniedError{Path: path, Roots: roots}
}

// realPath resolves the symbolic links of path's longest existing prefix; the part that does
// not exist yet is kept as written.
func realPath(path string) (string, error) {
	path = filepath.Clean(path)
	var rest []string
	for {
		r, err := filepath.EvalSymlinks(path)
		if err == nil {
			return filepath.Join(append([]string{r}, rest...)...), nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(path)
		if parent == path {
			return filepath.Join(append([]string{path}, rest...)...), nil
		}
		rest = append([]string{filepath.Base(path)}, rest...)
		path = parent
	}
}

// within reports whether path is root or below it.
func within(path, root string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// tempEnv are the variables that name the temp dir for common tools.
var tempEnv = []string{"TMPDIR", "TMP", "TEMP", "TEMPDIR"}

// CommandEnv is the environment a sandboxed command gets: env with the temp variables
// pointing at the run's temp dir, and KIMI_RUN_SANDBOX naming the mode.
func (p Policy) CommandEnv(env []string) []string {
	out := make([]string, 0, len(env)+len(tempEnv)+1)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		drop := name == "KIMI_RUN_SANDBOX"
		for _, t := range tempEnv {
			drop = drop || p.TempDir != "" && name == t
		}
		for _, v := range append(proxyEnv, noProxyEnv...) {
			drop = drop || p.Proxy() && name == v
		}
		if !drop {
			out = append(out, kv)
		}
	}
	if p.TempDir != "" {
		for _, t := range tempEnv {
			out = append(out, t+"="+p.TempDir)
		}
	}
	if p.Proxy() {
		url := fmt.Sprintf("http://127.0.0.1:%d", p.ProxyPort)
		for _, v := range proxyEnv {
			out = append(out, v+"="+url)
		}
		for _, v := range noProxyEnv {
			out = append(out, v+"=")
		}
	}
	mode := string(p.Mode)
	switch {
	case p.Proxy():
		mode += ",allow-host"
	case p.NoNetwork:
		mode += ",no-network"
	}
	return append(out, "KIMI_RUN_SANDBOX="+mode)
}

// ParsePolicy reads a policy Encode wrote.
func ParsePolicy(spec string) (Policy, error) {
	var p Policy
	if err := json.Unmarshal([]byte(spec), &p); err != nil {
		return p, fmt.Errorf("bad sandbox policy: %w", err)
	}
	switch p.Mode {
	case Off, ReadOnly, WorkspaceWrite:
	default:
		return p, fmt.Errorf("bad sandbox mode %q", p.Mode)
	}
	return p, nil
}
