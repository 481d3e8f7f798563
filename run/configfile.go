package run

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
)

// fileConfig is the part of Kimi CLI's config.toml that a print-mode run uses, so that an
// existing Kimi CLI user's file works unchanged. Unknown keys are ignored.
type fileConfig struct {
	DefaultModel    string                    `toml:"default_model" json:"default_model"`
	DefaultThinking *bool                     `toml:"default_thinking" json:"default_thinking"`
	Models          map[string]modelConfig    `toml:"models" json:"models"`
	Providers       map[string]providerConfig `toml:"providers" json:"providers"`
	LoopControl     loopControl               `toml:"loop_control" json:"loop_control"`
}

type modelConfig struct {
	Provider       string   `toml:"provider" json:"provider"`
	Model          string   `toml:"model" json:"model"`
	MaxContextSize int      `toml:"max_context_size" json:"max_context_size"`
	Capabilities   []string `toml:"capabilities" json:"capabilities"`
	// kimi-run's own keys (Kimi CLI has no prices): US dollars per million tokens, for
	// --max-cost-usd and the result's cost_usd.
	PriceInput       *float64 `toml:"price_input" json:"price_input"`
	PriceCachedInput *float64 `toml:"price_cached_input" json:"price_cached_input"`
	PriceOutput      *float64 `toml:"price_output" json:"price_output"`
}

type providerConfig struct {
	Type          string            `toml:"type" json:"type"`
	BaseURL       string            `toml:"base_url" json:"base_url"`
	APIKey        string            `toml:"api_key" json:"api_key"`
	CustomHeaders map[string]string `toml:"custom_headers" json:"custom_headers"`
}

type loopControl struct {
	MaxStepsPerTurn        int     `toml:"max_steps_per_turn" json:"max_steps_per_turn"`
	MaxStepsPerRun         int     `toml:"max_steps_per_run" json:"max_steps_per_run"` // older name
	MaxRetriesPerStep      int     `toml:"max_retries_per_step" json:"max_retries_per_step"`
	MaxRalphIterations     *int    `toml:"max_ralph_iterations" json:"max_ralph_iterations"`
	ReservedContextSize    int     `toml:"reserved_context_size" json:"reserved_context_size"`
	CompactionTriggerRatio float64 `toml:"compaction_trigger_ratio" json:"compaction_trigger_ratio"`
}

// configPath is --config-file, or Kimi CLI's default file when it exists.
func configPath(cli *CLI, getenv func(string) string) (path string, explicit bool) {
	if cli.ConfigFile != "" {
		return cli.ConfigFile, true
	}
	share := getenv("KIMI_SHARE_DIR")
	if share == "" {
		home := getenv("HOME")
		if home == "" {
			return "", false
		}
		share = filepath.Join(home, ".kimi")
	}
	return filepath.Join(share, "config.toml"), false
}

// loadConfig reads the config file. A file named with --config-file must exist; the default
// one may be missing. A file that exists but does not parse is a usage error either way: a
// silently ignored config would run with the wrong model or key.
func loadConfig(cli *CLI, getenv func(string) string) (*fileConfig, error) {
	path, explicit := configPath(cli, getenv)
	if path == "" {
		return &fileConfig{}, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && !explicit {
		return &fileConfig{}, nil
	}
	if err != nil {
		return nil, usagef("config file: %w", err)
	}
	var fc fileConfig
	if strings.EqualFold(filepath.Ext(path), ".json") {
		dec := json.NewDecoder(bytes.NewReader(data))
		err = dec.Decode(&fc)
	} else {
		_, err = toml.Decode(string(data), &fc)
	}
	if err != nil {
		// The parsers' messages quote a line, never a whole file; no key is echoed.
		return nil, usagef("config file %s: %v", path, oneLineErr(err))
	}
	return &fc, nil
}

func oneLineErr(err error) string {
	s := strings.Join(strings.Fields(err.Error()), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// model returns the model entry named name and its provider, if the file has them.
func (fc *fileConfig) model(name string) (modelConfig, providerConfig, bool, error) {
	m, ok := fc.Models[name]
	if !ok {
		return modelConfig{}, providerConfig{}, false, nil
	}
	p, ok := fc.Providers[m.Provider]
	if !ok {
		return m, p, true, usagef("config: model %q names provider %q, which is not in [providers]", name, m.Provider)
	}
	if m.Model == "" {
		m.Model = name
	}
	return m, p, true, nil
}

func (m modelConfig) has(capability string) bool {
	for _, c := range m.Capabilities {
		if c == capability {
			return true
		}
	}
	return false
}
