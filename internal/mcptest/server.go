// Package mcptest is an MCP server for tests, built with the official Go SDK that kimi-run's
// client uses. It offers a handful of tools that exercise the client's paths: plain text,
// arguments, structured output, error results, a slow tool, images, the server's environment,
// and (over stdio) a crash in the middle of a call.
//
// The same server runs over stdio as cmd/mcp-test-server (a small main package the
// end-to-end tests build) and over streamable HTTP in-process through Handler.
package mcptest

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options shape one test server.
type Options struct {
	// Name is the server's name; the echo tool reports it, so tests can tell servers apart.
	Name string
	// Crash, when set, is what the crash tool calls: over stdio it ends the process.
	Crash func()
	// Extra names more tools that behave like echo, for name collisions (e.g. "Shell").
	Extra []string
}

type echoIn struct {
	Text string `json:"text" jsonschema:"the text to send back"`
}

type addIn struct {
	A float64 `json:"a" jsonschema:"the first number"`
	B float64 `json:"b" jsonschema:"the second number"`
}

type addOut struct {
	Sum float64 `json:"sum"`
}

type failIn struct {
	Reason string `json:"reason" jsonschema:"why the call fails"`
}

type slowIn struct {
	MS int `json:"ms" jsonschema:"how long to take, in milliseconds"`
}

type getenvIn struct {
	Name string `json:"name" jsonschema:"the variable to read"`
}

type none struct{}

// PNG is the image the picture tool returns: the 8-byte PNG signature and a few bytes more.
var PNG = []byte("\x89PNG\r\n\x1a\nnot-really-an-image")

// NewServer returns a test server with its tools.
func NewServer(opts Options) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "mcp-test-server", Version: "1"}, nil)
	echo := func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		return text(fmt.Sprintf("%s says: %s", opts.Name, in.Text)), nil, nil
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Send the text back, prefixed with the server's name.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, echo)
	for _, name := range opts.Extra {
		mcp.AddTool(s, &mcp.Tool{Name: name, Description: "Like echo."}, echo)
	}
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Add two numbers; the sum comes back as structured content."},
		func(_ context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, addOut, error) {
			return nil, addOut{Sum: in.A + in.B}, nil
		})
	// fail changes nothing of note and reaches nothing outside: its annotations say so, for
	// the tests of how annotations become a tool's facts.
	closed := false
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Always fails with the reason given.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &closed, OpenWorldHint: &closed}},
		func(_ context.Context, _ *mcp.CallToolRequest, in failIn) (*mcp.CallToolResult, any, error) {
			r := text("failed on purpose: " + in.Reason)
			r.IsError = true
			return r, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "Answer after the time given, unless cancelled first."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in slowIn) (*mcp.CallToolResult, any, error) {
			select {
			case <-time.After(time.Duration(in.MS) * time.Millisecond):
				return text(fmt.Sprintf("slept %d ms", in.MS)), nil, nil
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
		})
	mcp.AddTool(s, &mcp.Tool{Name: "picture", Description: "Return a small PNG image and a caption."},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "a picture:"},
				&mcp.ImageContent{Data: PNG, MIMEType: "image/png"},
			}}, nil, nil
		})
	// Like server-filesystem's read_text_file: the text, and the same as structured content
	// in another shape ({"content": text}).
	mcp.AddTool(s, &mcp.Tool{Name: "read_text", Description: "Return a text, also as structured content."},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			const body = "line one\nline two\n"
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: body}},
				StructuredContent: map[string]any{"content": body}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "getenv", Description: "Return the value of an environment variable of the server process, or <unset>."},
		func(_ context.Context, _ *mcp.CallToolRequest, in getenvIn) (*mcp.CallToolResult, any, error) {
			v, ok := os.LookupEnv(in.Name)
			if !ok {
				v = "<unset>"
			}
			return text(in.Name + "=" + v), nil, nil
		})
	if opts.Crash != nil {
		mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "End the server process in the middle of the call."},
			func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
				opts.Crash()
				return text("still here"), nil, nil
			})
	}
	return s
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// SSEHandler serves a test server over the older HTTP+SSE transport.
func SSEHandler(opts Options) http.Handler {
	srv := NewServer(opts)
	return mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, nil)
}

// Handler serves a test server over streamable HTTP. When token is not empty, requests must
// carry "Authorization: Bearer <token>" or get 401.
func Handler(opts Options, token string) http.Handler {
	srv := NewServer(opts)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	if token == "" {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "missing or wrong token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}
