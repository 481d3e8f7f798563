package output

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/kimi-run/kimi-run/event"
)

// Neutralize makes s safe to print on a terminal: control characters other than newline
// and tab (ESC, BEL, a lone carriage return, DEL, the C1 range) are written out as visible
// text, so tool output, the model's words or an MCP server's stderr cannot move the
// cursor, retitle the window, rewrite earlier lines or hide text.
func Neutralize(s string) string {
	if !needsNeutralizing(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i, r := range s {
		switch {
		case r == '\r' && i+1 < len(s) && s[i+1] == '\n':
			b.WriteByte('\r') // CRLF line ends are ordinary text
		case r == utf8.RuneError:
			b.WriteRune(r)
		case isControl(r):
			if r < 0x80 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isControl(r rune) bool {
	return (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r <= 0x9f)
}

func needsNeutralizing(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f || (c == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f) {
			return true
		}
	}
	return false
}

// terminalSafe is a sink decorator for the sinks that write text for people (text
// progress, Kimi's messages on stderr): it neutralizes every string of every event. The
// NDJSON sink needs none of it, as JSON escapes control characters.
type terminalSafe struct{ Sink }

// TerminalSafe wraps inner so that every string of every event reaches it neutralized.
func TerminalSafe(inner Sink) Sink { return terminalSafe{inner} }

// Emit implements Sink.
func (t terminalSafe) Emit(e event.Event) {
	if e.Data == nil {
		t.Sink.Emit(e)
		return
	}
	clean := cleanValue(reflect.ValueOf(e.Data)).Interface().(event.Payload)
	// The final answer goes to stdout as the model wrote it: it is the run's product
	// (answer.md), not a line on the terminal's log.
	switch d := clean.(type) {
	case event.Result:
		d.FinalText = e.Data.(event.Result).FinalText
		clean = d
	case event.Answer:
		d.FinalText = e.Data.(event.Answer).FinalText
		clean = d
	}
	e.Data = clean
	t.Sink.Emit(e)
}

var rawMessageType = reflect.TypeFor[json.RawMessage]()

// cleanValue returns a copy of v with every string neutralized, and every JSON text
// (a tool call's arguments) decoded, neutralized and encoded again.
func cleanValue(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.String:
		c := reflect.New(v.Type()).Elem()
		c.SetString(Neutralize(v.String()))
		return c
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		c := reflect.New(v.Type().Elem())
		c.Elem().Set(cleanValue(v.Elem()))
		return c
	case reflect.Struct:
		c := reflect.New(v.Type()).Elem()
		c.Set(v)
		for i := range v.NumField() {
			if c.Field(i).CanSet() {
				c.Field(i).Set(cleanValue(v.Field(i)))
			}
		}
		return c
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		if v.Type() == rawMessageType {
			return reflect.ValueOf(cleanJSON(v.Interface().(json.RawMessage)))
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return v
		}
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			c.Index(i).Set(cleanValue(v.Index(i)))
		}
		return c
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		c := reflect.New(v.Type()).Elem()
		c.Set(cleanValue(v.Elem()))
		return c
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		c := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			c.SetMapIndex(it.Key(), cleanValue(it.Value()))
		}
		return c
	}
	return v
}

// cleanJSON neutralizes the strings inside a JSON text. JSON escapes control characters,
// but a sink that decodes the text to print it would bring them back.
func cleanJSON(raw json.RawMessage) json.RawMessage {
	if !strings.Contains(string(raw), `\`) && !needsNeutralizing(string(raw)) {
		return raw
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return raw
	}
	c := cleanValue(reflect.ValueOf(&v)).Elem().Interface()
	out, err := json.Marshal(c)
	if err != nil {
		return raw
	}
	return out
}

// NeutralWriter returns a writer that neutralizes what is written through it; each Write
// is a whole line or more.
func NeutralWriter(w io.Writer) io.Writer { return neutralWriter{w} }

type neutralWriter struct{ w io.Writer }

func (n neutralWriter) Write(p []byte) (int, error) {
	if !needsNeutralizing(string(p)) {
		return n.w.Write(p)
	}
	if _, err := io.WriteString(n.w, Neutralize(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
