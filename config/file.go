package config

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/BurntSushi/toml"
	"github.com/kimi-run/kimi-run/internal/infile"
)

// fileConfig is the part of Kimi CLI's config.toml that a print-mode run uses, so that an
// existing Kimi CLI user's file works unchanged. Unknown keys are ignored.
type fileConfig struct {
	DefaultModel    string                    `toml:"default_model" json:"default_model"`
	DefaultThinking *bool                     `toml:"default_thinking" json:"default_thinking"`
	Models          map[string]modelConfig    `toml:"models" json:"models"`
	Providers       map[string]providerConfig `toml:"providers" json:"providers"`
	LoopControl     loopControl               `toml:"loop_control" json:"loop_control"`
	Hooks           []hookConfig              `toml:"hooks" json:"hooks"`
	Background      backgroundConfig          `toml:"background" json:"background"`
	// Skills: extra_skill_dirs add directories; merge_all_available_skills (default true)
	// reads all of .kimi, .claude and .codex rather than the first that exists.
	ExtraSkillDirs          []string `toml:"extra_skill_dirs" json:"extra_skill_dirs"`
	MergeAllAvailableSkills *bool    `toml:"merge_all_available_skills" json:"merge_all_available_skills"`

	// path is the file read, "" for --config's text or no file.
	path string

	// raw is the whole file as tables of values, for the declared settings' keys
	// (declared.go); decodeRaw makes it on first need.
	raw       map[string]any
	decodeRaw func() map[string]any
}

// tree is the whole file as tables of values (nil for none).
func (fc *fileConfig) tree() map[string]any {
	if fc.decodeRaw != nil {
		fc.raw, fc.decodeRaw = fc.decodeRaw(), nil
	}
	return fc.raw
}

// hookConfig is one [[hooks]] entry: a command run at an event of the agent's life.
type hookConfig struct {
	Event   string `toml:"event" json:"event"`
	Command string `toml:"command" json:"command"`
	Matcher string `toml:"matcher" json:"matcher"`
	// Timeout is in seconds; unset means the default (30).
	Timeout *int `toml:"timeout" json:"timeout"`
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
	PriceCacheWrite  *float64 `toml:"price_cache_write" json:"price_cache_write"`
}

type providerConfig struct {
	Type          string            `toml:"type" json:"type"`
	BaseURL       string            `toml:"base_url" json:"base_url"`
	APIKey        string            `toml:"api_key" json:"api_key"`
	CustomHeaders map[string]string `toml:"custom_headers" json:"custom_headers"`
	// Env holds variables Kimi CLI sets for the provider's client (Vertex AI's
	// GOOGLE_CLOUD_PROJECT, GOOGLE_CLOUD_LOCATION); kimi-run reads them, it sets nothing.
	Env map[string]string `toml:"env" json:"env"`
	// OAuth names the stored login `kimi login` wrote (config/login.go).
	OAuth *oauthRef `toml:"oauth" json:"oauth"`
}

// oauthRef is a provider's `oauth = { storage = "file", key = "oauth/kimi-code" }`.
type oauthRef struct {
	Storage string `toml:"storage" json:"storage"`
	Key     string `toml:"key" json:"key"`
}

// loopControl is [loop_control]. Pointers tell a key the file sets (which must be valid, as
// Kimi CLI checks it) from one it leaves out (the default); config/loopcontrol.go checks them.
type loopControl struct {
	MaxStepsPerTurn        *int     `toml:"max_steps_per_turn" json:"max_steps_per_turn"`
	MaxStepsPerRun         *int     `toml:"max_steps_per_run" json:"max_steps_per_run"` // older name
	MaxRetriesPerStep      *int     `toml:"max_retries_per_step" json:"max_retries_per_step"`
	MaxRalphIterations     *int     `toml:"max_ralph_iterations" json:"max_ralph_iterations"`
	ReservedContextSize    *int     `toml:"reserved_context_size" json:"reserved_context_size"`
	CompactionTriggerRatio *float64 `toml:"compaction_trigger_ratio" json:"compaction_trigger_ratio"`
}

// load reads the configuration text: --config, or the config file (--config-file, else
// Kimi CLI's config.toml in the share dir). A file named with --config-file must exist; the
// default one may be missing. A file that exists but does not parse is a usage error either
// way: a silently ignored config would run with the wrong model or key.
func load(f *Flags, env Env) (*fileConfig, error) {
	if strings.TrimSpace(f.Config) != "" {
		return parseInlineConfig(f.Config)
	}
	path, explicit := f.ConfigFile, true
	if path == "" && f.Bare {
		return &fileConfig{}, nil // --bare reads only the file the command line names
	}
	if path == "" {
		path, explicit = ShareFile(env, "config.toml"), false
	}
	if path == "" {
		return &fileConfig{}, nil
	}
	// Read while the command line is parsed, before the run's clock exists: a regular file
	// only, which cannot keep the read waiting (a pipe's text goes in --config instead).
	data, err := infile.Read(context.Background(), path, infile.Config)
	if (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)) && !explicit {
		// No default file (HOME may even be a file or a path that does not exist).
		return &fileConfig{}, nil
	}
	if err != nil {
		return nil, Usagef("config file: %w", err)
	}
	var fc *fileConfig
	if strings.EqualFold(filepath.Ext(path), ".json") {
		fc, err = decodeJSON(data)
	} else {
		fc, err = decodeTOML(string(data))
	}
	if err != nil {
		// The parsers' messages quote a line, never a whole file; no key is echoed.
		return nil, Usagef("config file %s: %v", path, OneLine(err))
	}
	fc.path = path
	return fc, nil
}

// decodeJSON reads a config in JSON.
func decodeJSON(data []byte) (*fileConfig, error) {
	var fc fileConfig
	if err := json.Unmarshal(data, &fc); err != nil {
		return nil, err
	}
	fc.decodeRaw = func() map[string]any {
		var raw map[string]any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber() // an integer stays one
		_ = dec.Decode(&raw)
		return raw
	}
	return &fc, nil
}

// decodeTOML reads a config in TOML, parsed once for both the typed view and the tree.
func decodeTOML(text string) (*fileConfig, error) {
	var top toml.Primitive
	md, err := toml.Decode(text, &top)
	if err != nil {
		return nil, err
	}
	var fc fileConfig
	if err := md.PrimitiveDecode(top, &fc); err != nil {
		return nil, err
	}
	fc.decodeRaw = func() map[string]any {
		var raw map[string]any
		_ = md.PrimitiveDecode(top, &raw)
		return raw
	}
	return &fc, nil
}

// OneLine is an error's message on one line of at most 200 characters, for a message
// about a file or a text that must never be quoted whole.
func OneLine(err error) string {
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
		return m, p, true, Usagef("config: model %q names provider %q, which is not in [providers]", name, m.Provider)
	}
	if m.Model == "" {
		m.Model = name
	}
	return m, p, true, nil
}

// parseInlineConfig reads --config: the whole config as JSON or TOML text, JSON tried first
// as Kimi CLI does. It replaces the config file. The text is never echoed back: it may hold
// a key.
func parseInlineConfig(text string) (*fileConfig, error) {
	fc, jerr := decodeJSON([]byte(text))
	if jerr == nil {
		return fc, nil
	}
	fc, terr := decodeTOML(text)
	if terr == nil {
		return fc, nil
	}
	return nil, Usagef("--config is neither JSON (%s) nor TOML (%s)", OneLine(jerr), tomlWhere(terr))
}

// tomlWhere says where TOML text failed to parse without quoting it: the parser's message
// may quote a value, and inline config values include keys.
func tomlWhere(err error) string {
	var perr toml.ParseError
	if !errors.As(err, &perr) {
		return "does not parse"
	}
	where := fmt.Sprintf("syntax error on line %d", perr.Position.Line)
	if perr.LastKey != "" {
		where += fmt.Sprintf(" after key %q", perr.LastKey)
	}
	return where
}
