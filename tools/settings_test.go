package tools

import (
	"strings"
	"testing"
)

// TestSettings: a zero field is its declared default, within its range; Quote fills
// {flag-name} with the value; Validate refuses what is out of range; and Shell's
// description quotes the value it is built with.
func TestSettings(t *testing.T) {
	if got := (Settings{}).withDefaults(); got.ShellOutputBytes != 40_000 {
		t.Errorf("defaults: %+v", got)
	}
	if got := (Settings{ShellOutputBytes: 1000}).Quote("cut to {shell-output-bytes} bytes"); got != "cut to 1000 bytes" {
		t.Errorf("Quote: %q", got)
	}
	if err := (Settings{}).withDefaults().Validate(); err != nil {
		t.Errorf("the defaults are out of range: %v", err)
	}
	for n, ok := range map[int]bool{999: false, 1000: true, 40_000: true, 40_001: false} {
		s := (Settings{}).withDefaults()
		s.ShellOutputBytes = n
		if err := s.Validate(); (err == nil) != ok {
			t.Errorf("Validate(%d): %v", n, err)
		}
	}
	shell := NewShell(Env{Settings: Settings{ShellOutputBytes: 2000}})
	if !strings.Contains(shell.Description(), "cut to 2000 bytes") {
		t.Errorf("Shell's description:\n%s", shell.Description())
	}
}
