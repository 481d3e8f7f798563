package tools

import "testing"

func TestThink(t *testing.T) {
	tool := NewThink(Env{})
	res := runSearchTool(t, tool, map[string]any{"thought": "The bug is probably in the parser."})
	if res.IsError || res.Output == "" {
		t.Errorf("got %+v, want an acknowledgement", res)
	}
	if res := runSearchTool(t, tool, map[string]any{"thought": " "}); !res.IsError {
		t.Errorf("an empty thought was accepted: %+v", res)
	}
}
