package tools

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// lenientArgs loosens a call's arguments the way Kimi CLI's pydantic models do in lax
// mode, guided by the tool's schema: a numeric string or a whole float where an integer
// is wanted becomes that integer, "true"/"false" (and pydantic's other spellings, 1 and 0
// included) where a boolean is wanted becomes the boolean, and a null where the schema
// offers no null means "not given" and is dropped. Anything else is left for the decoder,
// whose error the model reads. args that are not a JSON object are returned as they are,
// and so are all args when the schema s (decoded) is nil.
func lenientArgs(s map[string]any, args json.RawMessage) json.RawMessage {
	if s == nil {
		return args
	}
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return args
	}
	if _, ok := v.(map[string]any); !ok {
		return args
	}
	v, changed := loosen(s, v)
	if !changed {
		return args
	}
	out, err := json.Marshal(v)
	if err != nil {
		return args
	}
	return out
}

// loosen returns v fitted to schema s as far as lax decoding goes, and whether it changed.
func loosen(s map[string]any, v any) (any, bool) {
	types := schemaTypes(s)
	switch x := v.(type) {
	case map[string]any:
		props := propertiesOf(s)
		changed := false
		for k, e := range x {
			ps, ok := props[k]
			if !ok {
				continue
			}
			if e == nil && !types[k]["null"] {
				delete(x, k)
				changed = true
				continue
			}
			if ne, c := loosen(ps, e); c {
				x[k], changed = ne, true
			}
		}
		return x, changed
	case []any:
		items := itemsOf(s)
		if items == nil {
			return x, false
		}
		changed := false
		for i, e := range x {
			if ne, c := loosen(items, e); c {
				x[i], changed = ne, true
			}
		}
		return x, changed
	}
	own := typeSet(s)
	if own["integer"] && !own["string"] {
		if n, ok := laxInteger(v); ok {
			return n, true
		}
	}
	if own["boolean"] && !own["string"] {
		if b, ok := laxBool(v); ok {
			return b, true
		}
	}
	return v, false
}

// laxInteger reads a numeric string or a whole float as an integer.
func laxInteger(v any) (json.Number, bool) {
	var text string
	switch x := v.(type) {
	case string:
		text = strings.TrimSpace(x)
	case json.Number:
		if _, err := strconv.ParseInt(x.String(), 10, 64); err == nil {
			return "", false // already an integer
		}
		text = x.String()
	default:
		return "", false
	}
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		return json.Number(strconv.FormatInt(n, 10)), true
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return "", false
	}
	return json.Number(strconv.FormatInt(int64(f), 10)), true
}

// laxBool reads pydantic's lax spellings of a boolean.
func laxBool(v any) (bool, bool) {
	var text string
	switch x := v.(type) {
	case string:
		text = strings.ToLower(strings.TrimSpace(x))
	case json.Number:
		text = x.String()
	default:
		return false, false
	}
	switch text {
	case "true", "1", "yes", "y", "on", "t":
		return true, true
	case "false", "0", "no", "n", "off", "f":
		return false, true
	}
	return false, false
}

// typeSet is the set of types s allows: its type (one or a list) and its anyOf branches'.
func typeSet(s map[string]any) map[string]bool {
	set := map[string]bool{}
	add := func(t any) {
		switch x := t.(type) {
		case string:
			set[x] = true
		case []any:
			for _, e := range x {
				if n, ok := e.(string); ok {
					set[n] = true
				}
			}
		}
	}
	add(s["type"])
	for _, b := range branches(s) {
		add(b["type"])
	}
	return set
}

// schemaTypes maps each property of object schema s to the types it allows.
func schemaTypes(s map[string]any) map[string]map[string]bool {
	m := map[string]map[string]bool{}
	for k, p := range propertiesOf(s) {
		m[k] = typeSet(p)
	}
	return m
}

// branches are s's anyOf schemas.
func branches(s map[string]any) []map[string]any {
	list, _ := s["anyOf"].([]any)
	var out []map[string]any
	for _, b := range list {
		if m, ok := b.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// propertiesOf merges the properties of s and of its object branches.
func propertiesOf(s map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, src := range append([]map[string]any{s}, branches(s)...) {
		props, _ := src["properties"].(map[string]any)
		for k, p := range props {
			if m, ok := p.(map[string]any); ok {
				out[k] = m
			}
		}
	}
	return out
}

// itemsOf is the items schema of s or of its array branch, or nil.
func itemsOf(s map[string]any) map[string]any {
	for _, src := range append([]map[string]any{s}, branches(s)...) {
		if m, ok := src["items"].(map[string]any); ok {
			return m
		}
	}
	return nil
}
