package testkit

// The helpers below look into NDJSON events decoded into maps, as end-to-end tests read
// them from the binary's stdout.

// OfType returns the events whose "type" is typ, in order.
func OfType(evs []map[string]any, typ string) []map[string]any {
	var out []map[string]any
	for _, e := range evs {
		if e["type"] == typ {
			out = append(out, e)
		}
	}
	return out
}

// Last returns the last event whose "type" is typ, or nil when there is none.
func Last(evs []map[string]any, typ string) map[string]any {
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i]["type"] == typ {
			return evs[i]
		}
	}
	return nil
}

// Any reports whether some event of type typ satisfies match.
func Any(evs []map[string]any, typ string, match func(map[string]any) bool) bool {
	for _, e := range OfType(evs, typ) {
		if match(e) {
			return true
		}
	}
	return false
}
