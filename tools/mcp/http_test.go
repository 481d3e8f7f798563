package mcp

import (
	"errors"
	"fmt"
	"testing"
)

func TestScrubURL(t *testing.T) {
	raw := "https://user:pw@mcp.example.com/mcp?token=s3cret"
	err := scrubURL(fmt.Errorf(`Post "%s": connection refused`, raw), raw)
	if got := err.Error(); got != `Post "https://mcp.example.com/mcp": connection refused` {
		t.Errorf("scrubbed = %q", got)
	}
	plain := errors.New("x")
	if scrubURL(plain, "https://h/mcp") != plain {
		t.Errorf("an error without secrets was rewritten")
	}
}
