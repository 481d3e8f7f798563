package config

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
)

// Nothing in a Kimi CLI config is ignored silently (issue 27 #3): a key of Kimi CLI 1.49's
// config.toml is honoured, or named in a warning that says why it does nothing here. Keys
// only Kimi's interactive shell reads, which its print mode ignores too, are listed in the
// README and pass without a word; a key neither Kimi CLI 1.49 nor kimi-run knows draws a
// warning as a likely typo.

// kimiShellOnly are Kimi CLI's top-level keys that its print mode ignores as well: the
// interactive shell's (editor, theme, the thinking preview) and default_yolo, which print
// mode implies, as kimi-run always approves.
var kimiShellOnly = []string{"default_yolo", "default_editor", "theme", "show_thinking_stream"}

// unhonoured are the keys of Kimi CLI 1.49 that kimi-run reads and does not act on, with
// why; when says which values deserve the warning (nil: any). A key that comes to be
// honoured by a declared flag (config:"table.key") is known from its declaration and leaves
// this table's warning behind by itself.
var unhonoured = []struct {
	key  string // a dotted key; "table.*" is every key of the table
	why  string
	when func(v any) bool
}{
	{key: "notifications.*", why: "kimi-run keeps no notification store for its claims to time out"},
	{key: "skip_afk_prompt_injection", when: isTrue,
		why: "kimi-run injects no afk reminder, but its default system prompt says nobody is present; replace it (--system-prompt, an agent file) to drop that"},
	{key: "telemetry", when: isTrue,
		why: "kimi-run sends no usage telemetry to Moonshot or anyone; OpenTelemetry export is OTEL_EXPORTER_OTLP_ENDPOINT's"},
	{key: "default_plan_mode", when: isTrue, why: "plan mode is not available in kimi-run"},
}

func isTrue(v any) bool { b, ok := v.(bool); return ok && b }

// checkedTables are the tables whose keys are checked one by one; the others (models,
// providers, services, hooks, mcp) are read as entries of their own.
var checkedTables = []string{"", "loop_control", "background", "notifications", "mcp.client"}

// kimiKeyWarnings are the warnings for fc's keys that do nothing here: Kimi's keys kimi-run
// does not act on, and keys nobody knows.
func kimiKeyWarnings(fc *fileConfig) []string {
	if len(fc.tree()) == 0 { // no file: nothing to check, and the known keys are not gathered
		return nil
	}
	known := knownKeys()
	var out []string
	for _, table := range checkedTables {
		entries := subtable(fc.tree(), table)
		names := make([]string, 0, len(entries))
		for name := range entries {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			key := name
			if table != "" {
				key = table + "." + name
			}
			if w, ok := unhonouredWarning(key, entries[name], known); ok {
				if w != "" {
					out = append(out, w)
				}
				continue
			}
			if _, isTable := entries[name].(map[string]any); known[key] || (isTable && table == "" && knownTable(key, known)) {
				continue
			}
			out = append(out, fmt.Sprintf("config: %s is not a key of Kimi CLI 1.49 or of kimi-run: ignored (a typo?)", key))
		}
	}
	return out
}

// unhonouredWarning is the warning for a key of the unhonoured table ("" when its value
// needs none), and whether the table has the key at all. A declared key is honoured.
func unhonouredWarning(key string, v any, known map[string]bool) (string, bool) {
	if known[key] {
		return "", false
	}
	for _, u := range unhonoured {
		table, all := strings.CutSuffix(u.key, ".*")
		if u.key != key && !(all && strings.HasPrefix(key, table+".")) {
			continue
		}
		if u.when != nil && !u.when(v) {
			return "", true
		}
		return fmt.Sprintf("config: %s: %s; ignored", key, u.why), true
	}
	return "", false
}

// knownTable reports whether a top-level table holds known keys, or is one kimi-run reads
// as entries (models, providers, services), or one the unhonoured table covers.
func knownTable(name string, known map[string]bool) bool {
	for k := range known {
		if strings.HasPrefix(k, name+".") {
			return true
		}
	}
	for _, u := range unhonoured {
		if strings.HasPrefix(u.key, name+".") {
			return true
		}
	}
	return false
}

// subtable is the table at a dotted path of the tree ("" is the tree itself).
func subtable(tree map[string]any, path string) map[string]any {
	if path == "" {
		return tree
	}
	for _, part := range strings.Split(path, ".") {
		next, _ := tree[part].(map[string]any)
		if next == nil {
			return nil
		}
		tree = next
	}
	return tree
}

// knownKeys are the dotted keys kimi-run honours: the typed file's, the declared flags'
// config keys, the tables read as entries, and Kimi's shell-only keys.
var knownKeys = sync.OnceValue(func() map[string]bool {
	known := map[string]bool{"services": true, "mcp": true, "sandbox.trusted_mcp_servers": true}
	for _, k := range kimiShellOnly {
		known[k] = true
	}
	addTags := func(prefix string, t reflect.Type) {
		for i := range t.NumField() {
			if name, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ","); name != "" && name != "-" {
				known[prefix+name] = true
			}
		}
	}
	addTags("", reflect.TypeFor[fileConfig]())
	addTags("loop_control.", reflect.TypeFor[loopControl]())
	addTags("background.", reflect.TypeFor[backgroundConfig]()) // config/background.go warns of those it ignores
	// The declared keys, tools.Settings' among them.
	for _, f := range reflect.VisibleFields(reflect.TypeFor[Flags]()) {
		for _, key := range strings.Split(f.Tag.Get("config"), ",") {
			if key = strings.TrimSpace(key); key != "" {
				known[key] = true
			}
		}
	}
	return known
})

// envWarnings name the variables of Kimi CLI that kimi-run reads and does not act on.
func envWarnings(env Env) []string {
	if env.Getenv("KIMI_MODEL_THINKING_KEEP") != "" {
		return []string{"KIMI_MODEL_THINKING_KEEP (Moonshot's thinking.keep) is not supported by kimi-run: ignored"}
	}
	return nil
}

// resolveProviderKeys reads the keys of the model's provider that the typed file leaves
// to it: reasoning_key, honoured for an openai_legacy provider as Kimi CLI honours it, and
// env, which Kimi CLI sets for vertexai providers only. What does nothing is a warning.
// Every provider's env values whose names say they are credentials are secrets.
func (s *Settings) resolveProviderKeys(fc *fileConfig, provider string) {
	providers := subtable(fc.tree(), "providers")
	names := make([]string, 0, len(providers))
	for name := range providers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p, _ := providers[name].(map[string]any)
		env, _ := p["env"].(map[string]any)
		for k, v := range env {
			if sv, ok := v.(string); ok && credentialName(k) {
				s.Secrets.own(sv)
			}
		}
		if name != provider {
			continue
		}
		typ := fc.Providers[name].Type
		if raw, ok := p["reasoning_key"]; ok {
			key, isString := raw.(string)
			switch {
			case !isString:
				s.Warnings = append(s.Warnings, fmt.Sprintf("config: providers.%s.reasoning_key is not a string: ignored", name))
			case typ == "openai_legacy":
				key = strings.TrimSpace(key)
				s.Endpoint.ReasoningKey = &key
			default:
				s.Warnings = append(s.Warnings, fmt.Sprintf("config: providers.%s.reasoning_key is read for openai_legacy providers only, as in Kimi CLI: ignored for type %q", name, typ))
			}
		}
		if len(env) > 0 && typ != "vertexai" {
			s.Warnings = append(s.Warnings, fmt.Sprintf("config: providers.%s.env: Kimi CLI sets these variables for vertexai providers only; ignored for type %q", name, typ))
		}
	}
}
