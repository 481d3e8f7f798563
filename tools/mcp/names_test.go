package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// setOf builds a Set of started servers offering the named tools, without any process.
func setOf(servers ...[]string) *Set {
	s := &Set{}
	for _, list := range servers {
		c := &conn{server: Server{Name: list[0]}, set: s}
		for _, name := range list[1:] {
			c.tools = append(c.tools, &sdk.Tool{Name: name, InputSchema: map[string]any{"type": "object"}})
		}
		s.conns = append(s.conns, c)
	}
	return s
}

func TestToolNames(t *testing.T) {
	long := strings.Repeat("x", 70)
	tests := []struct {
		name    string
		servers [][]string
		builtin []string
		want    []string
	}{
		{"own names", [][]string{{"github", "search_issues", "get_pr"}}, []string{"Shell"},
			[]string{"search_issues", "get_pr"}},
		{"two servers share a name", [][]string{{"a", "echo", "only_a"}, {"b", "echo"}}, nil,
			[]string{"a__echo", "only_a", "b__echo"}},
		{"a built-in keeps its name", [][]string{{"tools", "Shell", "ReadFile", "lint"}}, []string{"Shell", "ReadFile"},
			[]string{"tools__Shell", "tools__ReadFile", "lint"}},
		{"invalid characters", [][]string{{"my.server", "files/read", "a.b"}}, nil,
			[]string{"files_read", "a_b"}},
		{"invalid characters in a clash", [][]string{{"my.server", "x"}, {"other", "x"}}, nil,
			[]string{"my_server__x", "other__x"}},
		{"names equal after cleaning", [][]string{{"s", "a.b", "a/b"}}, nil,
			[]string{"s__a_b", "s__a_b_2"}},
		{"a prefixed name already taken", [][]string{{"a", "echo"}, {"b", "echo", "a__echo"}}, nil,
			[]string{"a__echo", "b__echo", "a__echo_2"}},
		{"long names are cut", [][]string{{"s", long}}, nil, []string{long[:64]}},
		{"long clash keeps room for the suffix", [][]string{{"s", long, long + "y"}}, nil,
			[]string{("s__" + long)[:64], ("s__" + long)[:62] + "_2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, tool := range setOf(tt.servers...).Tools(tt.builtin) {
				got = append(got, tool.Name())
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("names = %q, want %q", got, tt.want)
			}
			// Deterministic: the same input gives the same names.
			var again []string
			for _, tool := range setOf(tt.servers...).Tools(tt.builtin) {
				again = append(again, tool.Name())
			}
			if strings.Join(got, " ") != strings.Join(again, " ") {
				t.Errorf("second call gave %q", again)
			}
		})
	}
}

func TestFailedServersOfferNoTools(t *testing.T) {
	s := setOf([]string{"up", "echo"}, []string{"down", "echo"})
	s.conns[1].err = errTest
	ts := s.Tools(nil)
	if len(ts) != 1 || ts[0].Name() != "echo" || ts[0].Server() != "up" {
		t.Errorf("tools = %v", ts)
	}
}

var errTest = errorString("failed")

type errorString string

func (e errorString) Error() string { return string(e) }

func TestDescriptionAndSchema(t *testing.T) {
	s := setOf([]string{"gh"})
	s.conns[0].tools = []*sdk.Tool{
		{Name: "search", Description: "Search issues.", InputSchema: map[string]any{
			"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}, "required": []any{"q"}}},
		{Name: "bare", InputSchema: map[string]any{"properties": map[string]any{}}},
		{Name: "none"},
	}
	ts := s.Tools(nil)
	if d := ts[0].Description(); d != "MCP tool \"search\" from the MCP server \"gh\".\n\nSearch issues." {
		t.Errorf("description = %q", d)
	}
	if d := ts[1].Description(); d != `MCP tool "bare" from the MCP server "gh".` {
		t.Errorf("description without one = %q", d)
	}
	for i, want := range []string{
		`{"properties":{"q":{"type":"string"}},"required":["q"],"type":"object"}`,
		`{"properties":{},"type":"object"}`,
		`{"type":"object","properties":{}}`,
	} {
		if got := string(ts[i].Schema()); got != want {
			t.Errorf("%s schema = %s, want %s", ts[i].Name(), got, want)
		}
		if !json.Valid(ts[i].Schema()) {
			t.Errorf("invalid schema")
		}
	}
}
