package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// runSearchTool calls a tool with args marshalled to JSON and fails on a Go error.
func runSearchTool(t *testing.T, tool Tool, args any) Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tool.Run(context.Background(), raw)
	if err != nil {
		t.Fatalf("%s returned a Go error: %v", tool.Name(), err)
	}
	return res
}

// outputLines splits a tool output into lines, dropping the notes after a blank line.
func outputLines(out string) []string {
	body, _, _ := strings.Cut(out, "\n\n")
	if body == "" {
		return nil
	}
	return strings.Split(body, "\n")
}
