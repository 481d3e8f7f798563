package config

import (
	"reflect"
	"strings"
)

// ConfigKey is a key of config.toml as docs/reference.md lists it, from its declaration:
// a flag's config tag, or the tables of Kimi CLI's keys kimi-run does not act on.
type ConfigKey struct {
	Key string
	// Meaning is one line of Markdown.
	Meaning string
}

// ConfigKeys are the keys that set a flag (each "as --flag"), then Kimi CLI's keys that
// draw a warning (unhonoured), then those accepted without a word (kimiShellOnly).
func ConfigKeys() []ConfigKey {
	var out []ConfigKey
	for _, f := range reflect.VisibleFields(reflect.TypeFor[Flags]()) {
		keys := strings.Split(f.Tag.Get("config"), ",")
		for i, key := range keys {
			if key == "" {
				continue
			}
			meaning := "as `--" + flagName(f) + "`"
			if f.Type == durationType && strings.HasSuffix(key, "_ms") {
				meaning += ", in milliseconds"
			}
			if i > 0 {
				meaning += ", when `" + keys[i-1] + "` is absent"
			}
			out = append(out, ConfigKey{key, meaning})
		}
	}
	for _, u := range unhonoured {
		meaning := "a warning: " + u.why
		if u.when != nil {
			meaning = "`true` draws a warning: " + u.why
		}
		key := u.key
		if table, all := strings.CutSuffix(key, ".*"); all {
			key = "[" + table + "]"
		}
		out = append(out, ConfigKey{key, meaning})
	}
	for _, k := range kimiShellOnly {
		out = append(out, ConfigKey{k, "accepted without a word: Kimi CLI's print mode ignores it too"})
	}
	return out
}

// flagName is the long name kong gives a field of Flags: its name tag, else the field's
// name in kebab case.
func flagName(f reflect.StructField) string {
	if name := f.Tag.Get("name"); name != "" {
		return name
	}
	var b strings.Builder
	for i, r := range f.Name {
		if 'A' <= r && r <= 'Z' {
			if i > 0 {
				b.WriteByte('-')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
