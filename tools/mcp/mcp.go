// Package mcp connects to MCP (Model Context Protocol) servers with the official Go SDK and
// offers their tools to the agent as tools.Tool values.
//
// Start brings every configured server up in parallel, each within a start-up timeout; a
// server that fails is reported in its Status and left out, and the others go on. stdio
// servers run in their own process group and are stopped by Set.Close: stdin is closed, then
// the group is sent SIGTERM and finally SIGKILL, so nothing a server started outlives the
// run. The package knows nothing of events or flags: the caller turns statuses, crashes and
// stderr lines into whatever it reports.
package mcp

import (
	"net/http"
	"time"

	"github.com/kimi-run/kimi-run/internal/launch"
)

// Transport is how kimi-run talks to a server.
type Transport string

// The transports.
const (
	Stdio Transport = "stdio" // a child process, newline-delimited JSON-RPC on stdin/stdout
	HTTP  Transport = "http"  // streamable HTTP
	SSE   Transport = "sse"   // the older HTTP+SSE transport
)

// Server is one configured MCP server.
type Server struct {
	// Name is the server's name in the configuration.
	Name      string
	Transport Transport
	// Command, Args, Env and Dir start a stdio server. Env (KEY=VALUE) is set on top of
	// the run's environment (the launcher's); Dir is its working directory.
	Command string
	Args    []string
	Env     []string
	Dir     string
	// Confine runs a stdio server under the run's sandbox (sandbox/runplan decides
	// which: see docs/sandbox.md).
	Confine bool
	// URL and Headers reach an HTTP or SSE server.
	URL     string
	Headers map[string]string
}

// Default timeouts.
const (
	// DefaultStartupTimeout bounds connecting to one server and listing its tools.
	DefaultStartupTimeout = 30 * time.Second
	// DefaultCallTimeout bounds one tool call, as Kimi CLI's tool_call_timeout_ms default.
	DefaultCallTimeout = 60 * time.Second
)

// Shutdown timing. A stopping run must be done within about two seconds of a signal, so the
// whole sequence stays near one second.
const (
	stdinGrace    = 500 * time.Millisecond // after stdin is closed, before SIGTERM
	termGrace     = 300 * time.Millisecond // after SIGTERM, before SIGKILL
	killWait      = 200 * time.Millisecond // after SIGKILL, for the exit to be collected
	httpCloseWait = time.Second            // for an HTTP session's goodbye
	stderrDrain   = 100 * time.Millisecond // for a stopped server's last stderr lines
)

// stderrQuote bounds the wait for the last stderr lines of a server that failed, to quote
// them in the error: longer than stderrDrain, as a message a person reads is worth being
// whole on a loaded machine; it only runs out when a leftover process holds the pipe.
const stderrQuote = time.Second

// Options configure Start.
type Options struct {
	// StartupTimeout bounds each server's start (default DefaultStartupTimeout).
	StartupTimeout time.Duration
	// CallTimeout bounds each tool call (default DefaultCallTimeout).
	CallTimeout time.Duration
	// Version is reported to servers as the client's version.
	Version string
	// Roots are directories offered to servers that ask for roots (the work dir).
	Roots []string
	// Stderr receives each line a stdio server writes on its stderr; nil drops them.
	Stderr func(server, line string)
	// Exited is called once when a server that started stops on its own (a crash).
	Exited func(server string, err error)
	// Launcher starts the stdio servers (nil: from this process, with its environment).
	Launcher *launch.Launcher
	// HTTPClient is the base client for HTTP servers; nil uses http.DefaultTransport.
	HTTPClient *http.Client
}

func (o *Options) startupTimeout() time.Duration {
	if o.StartupTimeout > 0 {
		return o.StartupTimeout
	}
	return DefaultStartupTimeout
}

func (o *Options) callTimeout() time.Duration {
	if o.CallTimeout > 0 {
		return o.CallTimeout
	}
	return DefaultCallTimeout
}
