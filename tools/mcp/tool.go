package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kimi-run/kimi-run/tools"
)

// Tool is one tool of an MCP server, offered to the model under a name that is unique in the
// run (see Set.Tools). It implements tools.Tool.
type Tool struct {
	name   string // the name the model calls
	orig   string // the server's own name for it
	desc   string
	schema json.RawMessage
	conn   *conn
	facts  tools.Facts
}

// Name is the name offered to the model.
func (t *Tool) Name() string { return t.name }

// Description is the server's description, after a line naming the server.
func (t *Tool) Description() string { return t.desc }

// Schema is the server's input schema.
func (t *Tool) Schema() json.RawMessage { return t.schema }

// Server is the name of the server the tool belongs to.
func (t *Tool) Server() string { return t.conn.server.Name }

// ServerName is the server's own name for the tool, which may differ from Name.
func (t *Tool) ServerName() string { return t.orig }

// Facts are what the server's annotations say of the tool (see factsOf): the server's
// claims, not a guarantee. The work happens in the server, which kimi-run does not confine.
func (t *Tool) Facts() tools.Facts { return t.facts }

// factsOf maps a tool's MCP annotations onto tools.Facts, with the spec's defaults for
// what is missing: readOnlyHint false, destructiveHint true, openWorldHint true (a server
// that says nothing is taken to change things, destroy and reach out). destructiveHint
// means nothing for a read-only tool. MCP says nothing of files.
func factsOf(a *sdk.ToolAnnotations) tools.Facts {
	f := tools.Facts{Where: tools.InServer, Destructive: true, Network: true}
	if a == nil {
		return f
	}
	f.ReadOnly = a.ReadOnlyHint
	f.Destructive = !a.ReadOnlyHint && (a.DestructiveHint == nil || *a.DestructiveHint)
	f.Network = a.OpenWorldHint == nil || *a.OpenWorldHint
	return f
}

// Run calls the tool on its server within the call timeout. Every failure — a crashed
// server, a timeout, a protocol error, the tool's own error — is an error result for the
// model; Run never returns a Go error, so one broken server cannot stop the run.
func (t *Tool) Run(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	c := t.conn
	if c.proc != nil && c.proc.hasExited() {
		return tools.Errorf("MCP server %q is no longer running (%v); its tools cannot be used for the rest of this run",
			c.server.Name, c.proc.exitErr()), nil
	}
	args = bytes.TrimSpace(args)
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	if args[0] != '{' || !json.Valid(args) {
		return tools.Errorf("invalid arguments for %s: expected a JSON object", t.name), nil
	}
	timeout := c.set.opts.callTimeout()
	callCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	callCtx, lose := context.WithCancelCause(callCtx)
	defer lose(nil)
	res, err := c.session.CallTool(context.WithValue(callCtx, linkKey{}, lose), &sdk.CallToolParams{Name: t.orig, Arguments: args})
	var rpcErr *jsonrpc.Error // an error the server answered with, as opposed to a broken link
	answered := errors.As(err, &rpcErr)
	closed := errors.Is(err, sdk.ErrConnectionClosed)
	broken := closed || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) // the link, not the call
	err = scrubURL(err, c.server.URL)
	switch {
	case err == nil:
		return formatResult(res), nil
	case ctx.Err() != nil:
		return tools.Errorf("the call to %s was cancelled", t.name), nil
	case errors.Is(context.Cause(callCtx), errLinkLost):
		cause := scrubURL(context.Cause(callCtx), c.server.URL)
		c.linkLost(cause)
		return tools.Errorf("MCP server %q stopped answering during the call (%v); its tools cannot be used for the rest of this run", c.server.Name, cause), nil
	case errors.Is(callCtx.Err(), context.DeadlineExceeded):
		return tools.Errorf("MCP server %q did not answer the call to %s within %s; the call was cancelled",
			c.server.Name, t.name, timeout), nil
	case !answered && broken && c.proc != nil && c.proc.collect(ctx):
		// The link broke: the server exited or closed its output. Its exit is collected
		// (killing it if need be) rather than waited for a moment, so the model hears why
		// whatever the machine's load, and the next call finds it gone.
		return tools.Errorf("MCP server %q stopped during the call (%v); its tools cannot be used for the rest of this run",
			c.server.Name, c.proc.exitErr()), nil
	case closed:
		return tools.Errorf("MCP server %q closed the connection: %v", c.server.Name, err), nil
	default:
		return tools.Errorf("MCP server %q: %v", c.server.Name, err), nil
	}
}

var _ tools.Tool = (*Tool)(nil)
