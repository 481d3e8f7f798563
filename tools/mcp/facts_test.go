package mcp

import (
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kimi-run/kimi-run/tools"
)

// The defaults are the MCP spec's (schema 2025-06-18, ToolAnnotations): readOnlyHint false,
// destructiveHint true, openWorldHint true; destructiveHint is meaningful only when
// readOnlyHint is false.
func TestFactsOfAnnotations(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name string
		a    *sdk.ToolAnnotations
		want tools.Facts
	}{
		{"no annotations", nil, tools.Facts{Destructive: true, Network: true}},
		{"empty annotations", &sdk.ToolAnnotations{}, tools.Facts{Destructive: true, Network: true}},
		{"read-only", &sdk.ToolAnnotations{ReadOnlyHint: true}, tools.Facts{ReadOnly: true, Network: true}},
		{"read-only, destructive hint ignored", &sdk.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: &yes}, tools.Facts{ReadOnly: true, Network: true}},
		{"additive", &sdk.ToolAnnotations{DestructiveHint: &no}, tools.Facts{Network: true}},
		{"destructive said", &sdk.ToolAnnotations{DestructiveHint: &yes}, tools.Facts{Destructive: true, Network: true}},
		{"closed world", &sdk.ToolAnnotations{OpenWorldHint: &no}, tools.Facts{Destructive: true}},
		{"open world said", &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &yes}, tools.Facts{ReadOnly: true, Network: true}},
		{"idempotent decides nothing", &sdk.ToolAnnotations{IdempotentHint: true, Title: "T"}, tools.Facts{Destructive: true, Network: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.want.Where = tools.InServer // the server does the work, whatever it claims
			if got := factsOf(tt.a); got != tt.want {
				t.Errorf("factsOf = %+v, want %+v", got, tt.want)
			}
		})
	}
}
