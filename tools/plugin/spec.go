// Package plugin loads Kimi CLI's plugins: directories under the share dir's plugins/ with a
// plugin.json whose tools[] are commands the model can call. Each tool runs as a child of
// the run, through the one launcher (confined like Shell under the sandbox, with the run's
// environment, credentials left out), its arguments as JSON on stdin and its stdout as the
// result, as Kimi CLI's plugin tools run (kimi_cli/plugin/tool.py).
package plugin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/kimi-run/kimi-run/internal/infile"
)

// FileName is the file that makes a directory a plugin.
const FileName = "plugin.json"

// Spec is one plugin: its plugin.json, as Kimi CLI reads it (PluginSpec; unknown fields
// ignored).
type Spec struct {
	// Dir is the plugin's directory: its tools run there.
	Dir         string     `json:"-"`
	Name        string     `json:"name"`
	Version     string     `json:"version"`
	Description string     `json:"description"`
	ConfigFile  string     `json:"config_file"`
	Inject      Inject     `json:"inject"`
	Tools       []ToolSpec `json:"tools"`
}

// Inject maps keys of the plugin's config file (and, for Kimi CLI, variables of its tools'
// environment) to the host value they receive: "api_key" or "base_url".
type Inject map[string]string

// ToolSpec is one tool a plugin declares.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Command     []string        `json:"command"`
	Parameters  json.RawMessage `json:"parameters"`
}

// toolName is what a function name may be for the providers kimi-run speaks.
var toolName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`) })

// Find reads the plugins under dir (dir/NAME/plugin.json), in the order of their directory
// names, as Kimi CLI scans them. A plugin that cannot be used is left out with a warning:
// a plugin.json that does not read or parse, a missing name or version, inject without
// config_file. A tool without a name, a description or a command is left out the same way.
// A missing dir has no plugins. Reading stops when ctx ends.
func Find(ctx context.Context, dir string) ([]Spec, []string) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, []string{fmt.Sprintf("plugins: %v", err)}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	var specs []Spec
	var warnings []string
	for _, e := range entries {
		pdir := filepath.Join(dir, e.Name())
		if fi, err := os.Stat(pdir); err != nil || !fi.IsDir() {
			continue
		}
		path := filepath.Join(pdir, FileName)
		if _, err := os.Stat(path); err != nil {
			continue // not a plugin
		}
		spec, err := read(ctx, path)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("plugin %s is left out: %v", pdir, err))
			continue
		}
		spec.Dir = pdir
		var keep []ToolSpec
		for i, t := range spec.Tools {
			if why := t.problem(); why != "" {
				warnings = append(warnings, fmt.Sprintf("plugin %s: tool %d (%q) is left out: %s", spec.Name, i+1, t.Name, why))
				continue
			}
			keep = append(keep, t)
		}
		spec.Tools = keep
		specs = append(specs, spec)
	}
	return specs, warnings
}

// read parses one plugin.json with Kimi CLI's checks.
func read(ctx context.Context, path string) (Spec, error) {
	data, err := infile.Read(ctx, path, infile.PluginFile)
	if err != nil {
		return Spec{}, err
	}
	var spec Spec
	if err := json.Unmarshal(data, &spec); err != nil {
		return Spec{}, fmt.Errorf("%s: %w", path, err)
	}
	switch {
	case strings.TrimSpace(spec.Name) == "":
		return Spec{}, fmt.Errorf("%s has no name", path)
	case strings.TrimSpace(spec.Version) == "":
		return Spec{}, fmt.Errorf("%s has no version", path)
	case len(spec.Inject) > 0 && spec.ConfigFile == "":
		return Spec{}, fmt.Errorf("%s has inject without config_file", path)
	}
	return spec, nil
}

// problem says why a tool cannot be offered, or "".
func (t ToolSpec) problem() string {
	switch {
	case !toolName().MatchString(t.Name):
		return "its name must be 1 to 64 letters, digits, '_' or '-'"
	case strings.TrimSpace(t.Description) == "":
		return "it has no description"
	case len(t.Command) == 0 || strings.TrimSpace(t.Command[0]) == "":
		return "it has no command"
	}
	if p := strings.TrimSpace(string(t.Parameters)); p != "" && p != "null" {
		var schema map[string]any
		if json.Unmarshal(t.Parameters, &schema) != nil {
			return "its parameters are not a JSON Schema object"
		}
	}
	return ""
}
