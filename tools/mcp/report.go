package mcp

import (
	"fmt"

	"github.com/kimi-run/kimi-run/event"
)

// Report describes the servers and the tools Tools last named, for the init event.
func (s *Set) Report() []event.MCPServer {
	var out []event.MCPServer
	for _, st := range s.Statuses() {
		e := event.MCPServer{Name: st.Name, Transport: string(st.Transport), Status: "connected", Tools: []string{}}
		if st.Err != nil {
			e.Status, e.Error = "failed", st.Err.Error()
		}
		for _, t := range s.named {
			if t.Server() == st.Name {
				e.Tools = append(e.Tools, t.Name())
			}
		}
		out = append(out, e)
	}
	return out
}

// Warnings are one per server that failed to start and one per server that wrote lines on
// stdout that are not JSON-RPC; none when the context given to Start ended during it (a
// signal, a timeout): the run's result says why, not each server it cut short.
func (s *Set) Warnings() []string {
	var out []string
	if s.interrupted {
		return nil
	}
	for _, st := range s.Statuses() {
		if st.Err != nil {
			out = append(out, fmt.Sprintf("MCP server %q is not available, the run goes on without its tools: %v", st.Name, st.Err))
		}
		if st.Skipped > 0 {
			out = append(out, fmt.Sprintf("MCP server %q wrote %d line(s) on stdout that are not JSON-RPC, skipped (the first: %q)", st.Name, st.Skipped, st.FirstSkipped))
		}
	}
	return out
}
