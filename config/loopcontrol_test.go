package config

import (
	"errors"
	"strings"
	"testing"
)

// TestLoopControlBounds follows Kimi CLI's tests/core/test_config.py
// (test_load_config_invalid_ralph_iterations, test_load_config_reserved_context_size*,
// test_load_config_compaction_trigger_ratio*, test_load_config_max_steps_per_*): the same
// config text, as JSON or TOML, is accepted or refused naming the key.
func TestLoopControlBounds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text    string
		wantErr string // "" accepts
	}{
		{text: `{"loop_control": {"max_ralph_iterations": -2}}`, wantErr: "max_ralph_iterations"},
		{text: `{"loop_control": {"max_ralph_iterations": -1}}`},
		{text: `{"loop_control": {"reserved_context_size": 30000}}`},
		{text: `{"loop_control": {"reserved_context_size": 1000}}`},
		{text: `{"loop_control": {"reserved_context_size": 500}}`, wantErr: "reserved_context_size"},
		{text: "[loop_control]\nmax_steps_per_turn = 42\n"},
		{text: "[loop_control]\nmax_steps_per_turn = 0\n", wantErr: "max_steps_per_turn"},
		{text: `{"loop_control": {"max_steps_per_run": 7}}`},
		{text: `{"loop_control": {"max_retries_per_step": 0}}`, wantErr: "max_retries_per_step"},
		{text: `{"loop_control": {"compaction_trigger_ratio": 0.8}}`},
		{text: `{"loop_control": {"compaction_trigger_ratio": 0.5}}`},
		{text: `{"loop_control": {"compaction_trigger_ratio": 0.99}}`},
		{text: `{"loop_control": {"compaction_trigger_ratio": 0.3}}`, wantErr: "compaction_trigger_ratio"},
		{text: `{"loop_control": {"compaction_trigger_ratio": 1.0}}`, wantErr: "compaction_trigger_ratio"},
		{text: `{}`},
	}
	for _, tt := range tests {
		fc, err := parseInlineConfig(tt.text)
		if err != nil {
			t.Fatalf("%s: %v", tt.text, err)
		}
		err = fc.LoopControl.validate()
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%s: refused: %v", tt.text, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s: error %v, want one naming %s", tt.text, err, tt.wantErr)
		case err != nil:
			var ue *UsageError
			if !errors.As(err, &ue) {
				t.Errorf("%s: %T is not a usage error (exit 2)", tt.text, err)
			}
		}
	}
}
