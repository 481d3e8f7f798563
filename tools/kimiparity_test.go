package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/testkit"
	"github.com/kimi-run/kimi-run/tools/background"
)

// kimiTools is testdata/kimi-1.49-tools.json: every parameter of every tool of Kimi CLI
// 1.49's default agent, in order, as its pydantic models give them (the file names the
// commit and the source paths; no description text is in it).
type kimiTools struct {
	Tools []struct {
		Name       string           `json:"name"`
		Parameters []map[string]any `json:"parameters"`
	} `json:"tools"`
}

// TestKimiToolParity holds kimi-run's default tools against Kimi CLI 1.49's, parameter by
// parameter: the tools of Kimi's default agent are offered under the same names, and each
// parameter has the same name, place, types (null included), requiredness, default, bounds
// and enum. A difference fails unless docs/kimi-cli.md's "What differs" lists it under "Tool
// parameters." as `Tool.parameter`; a listed one that is no longer a difference fails too.
func TestKimiToolParity(t *testing.T) {
	data, err := os.ReadFile("testdata/kimi-1.49-tools.json")
	if err != nil {
		t.Fatal(err)
	}
	var kimi kimiTools
	if err := json.Unmarshal(data, &kimi); err != nil {
		t.Fatal(err)
	}
	ours := map[string]Tool{}
	for _, tool := range Builtins(Env{Subagent: noSubagent{}, Media: MediaSupport{Images: true}, Search: &Service{}, Plan: NewPlanMode("/plan.md")}) {
		ours[tool.Name()] = tool
	}
	listed := listedToolDifferences(t)
	found := map[string]bool{}
	for _, kt := range kimi.Tools {
		tool, ok := ours[kt.Name]
		if !ok {
			found[kt.Name] = true
			if !listed[kt.Name] {
				t.Errorf("%s: Kimi's default agent offers it, kimi-run's does not", kt.Name)
			}
			continue
		}
		got := flattenSchema(t, "", tool.Schema())
		for i := range max(len(got), len(kt.Parameters)) {
			var want, have map[string]any
			if i < len(kt.Parameters) {
				want = kt.Parameters[i]
			}
			if i < len(got) {
				have = got[i]
			}
			for _, d := range paramDifferences(want, have) {
				key := kt.Name + "." + d.path
				found[key] = true
				if !listed[key] {
					t.Errorf("%s: %s (not listed in docs/kimi-cli.md's What differs, Tool parameters)", key, d.what)
				}
			}
		}
	}
	for key := range listed {
		if !found[key] {
			t.Errorf("docs/kimi-cli.md lists %s as a tool parameter difference, but the schemas agree", key)
		}
	}
}

type paramDiff struct{ path, what string }

// paramDifferences compares the parameter Kimi has at one place with kimi-run's there.
func paramDifferences(want, have map[string]any) []paramDiff {
	wp, _ := want["path"].(string)
	hp, _ := have["path"].(string)
	switch {
	case want == nil:
		return []paramDiff{{hp, "kimi-run has a parameter Kimi does not"}}
	case have == nil:
		return []paramDiff{{wp, "Kimi has a parameter kimi-run does not"}}
	case wp != hp:
		return []paramDiff{{wp, fmt.Sprintf("kimi-run has %q in its place", hp)}}
	}
	keys := map[string]bool{}
	for k := range want {
		keys[k] = true
	}
	for k := range have {
		keys[k] = true
	}
	var out []paramDiff
	for _, k := range slices.Sorted(mapKeys(keys)) {
		if !reflect.DeepEqual(want[k], have[k]) {
			out = append(out, paramDiff{wp, fmt.Sprintf("%s: Kimi %v, kimi-run %v", k, want[k], have[k])})
		}
	}
	return out
}

func mapKeys(m map[string]bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// flattenSchema lists the parameters of an object schema in order, nested ones as
// parent.child (an object) and parent[].child (a list of objects), in the testdata's terms.
func flattenSchema(t *testing.T, prefix string, raw json.RawMessage) []map[string]any {
	t.Helper()
	var obj struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, name := range objectKeys(t, obj.Properties) {
		var props map[string]json.RawMessage
		if err := json.Unmarshal(obj.Properties, &props); err != nil {
			t.Fatal(err)
		}
		var s map[string]any
		if err := json.Unmarshal(props[name], &s); err != nil {
			t.Fatal(err)
		}
		e := map[string]any{"path": prefix + name, "required": slices.Contains(obj.Required, name)}
		if d, ok := s["default"]; ok {
			e["default"] = d
		}
		types := map[string]bool{}
		branches := []map[string]any{s}
		if list, ok := s["anyOf"].([]any); ok {
			for _, b := range list {
				branches = append(branches, b.(map[string]any))
			}
		}
		for _, b := range branches {
			switch tv := b["type"].(type) {
			case string:
				types[tv] = true
			case []any:
				for _, x := range tv {
					types[x.(string)] = true
				}
			}
			for from, to := range map[string]string{"minimum": "minimum", "maximum": "maximum", "enum": "enum",
				"minItems": "min_items", "maxItems": "max_items", "minLength": "min_length"} {
				if v, ok := b[from]; ok {
					e[to] = v
				}
			}
		}
		tl := make([]any, 0, len(types))
		for _, n := range slices.Sorted(mapKeys(types)) {
			tl = append(tl, n)
		}
		e["types"] = tl
		out = append(out, e)
		var nested struct {
			AnyOf []json.RawMessage `json:"anyOf"`
		}
		if err := json.Unmarshal(props[name], &nested); err != nil {
			t.Fatal(err)
		}
		if nested.AnyOf == nil {
			nested.AnyOf = []json.RawMessage{props[name]}
		}
		for _, br := range nested.AnyOf {
			var b struct {
				Type  any             `json:"type"`
				Items json.RawMessage `json:"items"`
			}
			if err := json.Unmarshal(br, &b); err != nil {
				t.Fatal(err)
			}
			switch b.Type {
			case "object":
				out = append(out, flattenSchema(t, prefix+name+".", br)...)
			case "array":
				if len(b.Items) > 0 {
					out = append(out, flattenSchema(t, prefix+name+"[].", b.Items)...)
				}
			}
		}
	}
	return out
}

// objectKeys returns the keys of a JSON object in the order they are written.
func objectKeys(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	if len(raw) == 0 {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	if _, err := d.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for d.More() {
		k, err := d.Token()
		if err != nil {
			t.Fatal(err)
		}
		var skip json.RawMessage
		if err := d.Decode(&skip); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
	}
	return keys
}

// listedToolDifferences reads the `Tool.parameter` (or `Tool`) entries of the "Tool
// parameters." bullet of docs/kimi-cli.md's "What differs": the one list of deliberate differences.
func listedToolDifferences(t *testing.T) map[string]bool {
	t.Helper()
	text := testkit.DocSection(t, filepath.Join("..", "docs", "kimi-cli.md"), "## What differs")
	start := strings.Index(text, "- **Tool parameters.**")
	if start < 0 {
		t.Fatal(`docs/kimi-cli.md's What differs has no "Tool parameters." bullet`)
	}
	bullet := text[start+2:]
	if end := regexp.MustCompile(`\n(- |#)`).FindStringIndex(bullet); end != nil {
		bullet = bullet[:end[0]]
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("`([A-Z][A-Za-z]+\\.[-a-zA-Z_\\[\\].]+)`").FindAllStringSubmatch(bullet, -1) {
		listed[m[1]] = true
	}
	keys := slices.Collect(mapKeys(listed))
	sort.Strings(keys)
	t.Logf("listed: %v", keys)
	return listed
}

// TestSchemaBoundsAreTheCode: the defaults and bounds the schemas state are the ones the
// code applies, so a changed limit cannot leave the schema saying another.
func TestSchemaBoundsAreTheCode(t *testing.T) {
	ours := map[string]Tool{}
	for _, tool := range AllBuiltins() {
		ours[tool.Name()] = tool
	}
	want := map[string]map[string]float64{
		"Shell.timeout":      {"default": ShellDefaultTimeout, "maximum": background.MaxTimeout.Seconds()},
		"TaskList.limit":     {"default": taskListDefault, "maximum": taskListMax},
		"TaskOutput.timeout": {"default": taskWaitDefault, "maximum": taskWaitMax},
		"SearchWeb.limit":    {"default": searchDefaultLimit, "maximum": searchMaxLimit},
		"ReadFile.n_lines":   {"default": ReadMaxLines},
		"Grep.head_limit":    {"default": grepDefaultLimit},
		"Agent.timeout":      {"minimum": agentMinTimeout, "maximum": agentMaxTimeout},
	}
	for key, bounds := range want {
		name, param, _ := strings.Cut(key, ".")
		var got map[string]any
		for _, p := range flattenSchema(t, "", ours[name].Schema()) {
			if p["path"] == param {
				got = p
			}
		}
		for k, v := range bounds {
			if got[k] != v {
				t.Errorf("%s: the schema's %s is %v, the code's %v", key, k, got[k], v)
			}
		}
	}
}
