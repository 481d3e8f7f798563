// Package answerschema is --json-schema: the JSON Schema a run's final answer must match,
// the instruction that shows it to the model, and the re-asks when an answer does not match.
package answerschema

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/infile"
)

// Reasks is how many times a final answer that does not match --json-schema is asked for
// again before the run fails (exit 7).
const Reasks = 2

// Schema is a resolved --json-schema and its text, which the model is shown.
type Schema struct {
	schema *jsonschema.Resolved
	text   string
}

// schemaVersions are the $schema values the validator understands: drafts 2020-12 (also
// assumed when a schema names none) and 7.
var schemaVersions = map[string]bool{
	"": true,
	"https://json-schema.org/draft/2020-12/schema": true,
	"http://json-schema.org/draft-07/schema#":      true,
	"https://json-schema.org/draft-07/schema#":     true,
	"http://json-schema.org/draft-07/schema":       true,
}

// Load reads --json-schema: inline JSON when the value starts like a JSON object (or is
// true/false, which are schemas too), a file otherwise; nil when spec is blank. A $ref may
// name other local files (relative to the schema file), never a URL: a run does not fetch
// its schema. Every error is the user's (a usage error to the caller).
func Load(ctx context.Context, spec string) (*Schema, error) {
	if strings.TrimSpace(spec) == "" {
		return nil, nil
	}
	raw, base := []byte(spec), ""
	if t := strings.TrimSpace(spec); !strings.HasPrefix(t, "{") && t != "true" && t != "false" {
		data, err := infile.Read(ctx, spec, infile.Schema)
		if err != nil {
			return nil, fmt.Errorf("--json-schema: %w", err)
		}
		abs, err := filepath.Abs(spec)
		if err != nil {
			return nil, fmt.Errorf("--json-schema: %w", err)
		}
		raw, base = data, (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
	}
	name := schemaName(spec)
	sch, err := parseSchema(raw)
	if err != nil {
		return nil, fmt.Errorf("--json-schema %s is not a JSON Schema: %v", name, clipLine(err.Error(), 200))
	}
	if err := checkSchemaValues(sch); err != nil {
		return nil, fmt.Errorf("--json-schema %s is not a valid JSON Schema: %v", name, err)
	}
	if !schemaVersions[sch.Schema] {
		return nil, fmt.Errorf("--json-schema %s: $schema %q is not supported; use draft 2020-12 or draft 7", name, sch.Schema)
	}
	resolved, err := sch.Resolve(&jsonschema.ResolveOptions{BaseURI: base, Loader: func(u *url.URL) (*jsonschema.Schema, error) { return fileLoader(ctx, u) }})
	if err != nil {
		return nil, fmt.Errorf("--json-schema %s: %v", name, clipLine(err.Error(), 200))
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, fmt.Errorf("--json-schema %s is not JSON: %v", name, err)
	}
	return &Schema{schema: resolved, text: compact.String()}, nil
}

func parseSchema(raw []byte) (*jsonschema.Schema, error) {
	var sch jsonschema.Schema
	if err := json.Unmarshal(raw, &sch); err != nil {
		return nil, err
	}
	return &sch, nil
}

// fileLoader loads the schemas a $ref names, from local files only.
func fileLoader(ctx context.Context, u *url.URL) (*jsonschema.Schema, error) {
	if u.Scheme != "file" {
		return nil, fmt.Errorf("$ref %s: only local files are loaded, not URLs", u.Redacted())
	}
	data, err := infile.Read(ctx, filepath.FromSlash(u.Path), infile.Schema)
	if err != nil {
		return nil, fmt.Errorf("$ref: %w", err)
	}
	return parseSchema(data)
}

func schemaName(spec string) string {
	if strings.HasPrefix(strings.TrimSpace(spec), "{") {
		return "(inline)"
	}
	return spec
}

// instruction is added to every prompt of the run (by Prompted), so the model knows the shape of its
// final answer from the start (a Ralph or flow run does not know which turn is its last,
// and a fresh-context iteration forgets earlier prompts). The user prompt rather than the
// system prompt carries it: a resumed session keeps its stored system prompt.
func (s *Schema) instruction(flow bool) string {
	var b strings.Builder
	b.WriteString("\n\n<output_format>\nThe caller parses your final answer as JSON. When the task is done, make your final answer a single JSON value that is valid against the JSON Schema below, and nothing else: no prose before or after it (a ```json code fence around it is fine).")
	if flow {
		b.WriteString(" When a <choice> tag is asked for, put it after the JSON.")
	}
	b.WriteString("\n\n```json\n")
	b.WriteString(s.text)
	b.WriteString("\n```\n</output_format>")
	return b.String()
}

// Check validates an answer. It returns the answer as compact JSON when it is valid, and
// otherwise the problem found.
func (s *Schema) Check(answer string) (json.RawMessage, []string) {
	text := extractJSON(answer)
	if text == "" {
		return nil, []string{"the answer is empty; it must be a JSON value"}
	}
	var inst any
	dec := json.NewDecoder(strings.NewReader(text))
	if err := dec.Decode(&inst); err != nil {
		return nil, []string{"the answer is not JSON: " + err.Error()}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, []string{"the answer is not JSON: more follows the first JSON value"}
	}
	if err := s.schema.Validate(inst); err != nil {
		return nil, []string{strings.TrimPrefix(clipLine(err.Error(), 200), "validating root: ")}
	}
	var out bytes.Buffer
	if err := json.Compact(&out, []byte(text)); err != nil {
		return nil, []string{"the answer is not JSON: " + err.Error()}
	}
	return out.Bytes(), nil
}

// fence matches a Markdown code fence; compiled on first use, as only --json-schema needs it.
var fence = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("(?s)```[A-Za-z0-9_+-]*[ \t]*\r?\n(.*?)\r?\n?```")
})

// extractJSON takes the JSON out of an answer: the whole answer, or the content of its one
// code fence (```json ... ```), so that a fenced answer or one line of prose around a fence
// does not cost a re-ask.
func extractJSON(answer string) string {
	t := strings.TrimSpace(answer)
	if json.Valid([]byte(t)) {
		return t
	}
	if m := fence().FindAllStringSubmatch(t, -1); len(m) == 1 {
		return strings.TrimSpace(m[0][1])
	}
	return t
}

// Error is a final answer that still does not match --json-schema after the re-asks.
type Error struct {
	Problems []string
	Answer   string
}

func (e *Error) Error() string {
	return fmt.Sprintf("the final answer does not match --json-schema after %d re-asks: %s. Last answer: %s",
		Reasks, strings.Join(e.Problems, "; "), clipLine(e.Answer, 500))
}

// clipLine flattens s to one line of at most n bytes.
func clipLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = strings.ToValidUTF8(s[:n], "") + "…"
	}
	if s == "" {
		return "(empty)"
	}
	return s
}

// Turner runs one turn; the agent does, and so does anything that wraps it.
type Turner interface {
	Turn(ctx context.Context, spec event.TurnSpec) (event.TurnOutcome, error)
}

// Prompted adds the output-format instruction to the prompt of every turn it runs. flow
// says that the turns are a Ralph loop's or a flow's, whose answers may end in a <choice>.
func (s *Schema) Prompted(t Turner, flow bool) Turner {
	return prompted{Turner: t, note: s.instruction(flow)}
}

type prompted struct {
	Turner
	note string
}

func (p prompted) Turn(ctx context.Context, spec event.TurnSpec) (event.TurnOutcome, error) {
	spec.Prompt += p.note
	return p.Turner.Turn(ctx, spec)
}

// Settled is the final answer once Settle is done with it.
type Settled struct {
	// Value is the answer as compact JSON; nil unless it matched.
	Value json.RawMessage
	// FinalText is the last answer, cleaned.
	FinalText string
	// Stop is the stop reason of a re-ask that ended before it completed; empty otherwise.
	Stop event.StopReason
}

// Settle checks answer, the final answer of a run that otherwise succeeded, and asks t again
// with the validator's findings at most Reasks times; an answer still wrong then is an
// *Error. A re-ask is an ordinary turn in the same session (it counts toward the steps and
// the budget). clean strips what the driver adds to answers (a flow's <choice>); warn
// reports each re-ask.
func (s *Schema) Settle(ctx context.Context, t Turner, answer string, clean func(string) string, warn func(string)) (Settled, error) {
	out := Settled{FinalText: answer}
	for attempt := 0; ; attempt++ {
		value, problems := s.Check(out.FinalText)
		if problems == nil {
			out.Value = value
			return out, nil
		}
		if attempt == Reasks {
			return out, &Error{Problems: problems, Answer: out.FinalText}
		}
		warn(fmt.Sprintf("the final answer does not match --json-schema (%s); asking again (%d/%d)",
			clipLine(strings.Join(problems, "; "), 200), attempt+1, Reasks))
		turn, err := t.Turn(ctx, event.TurnSpec{Prompt: reaskPrompt(problems)})
		if turn.FinalText != "" || err == nil {
			out.FinalText = clean(turn.FinalText)
		}
		if err != nil {
			return out, err
		}
		if turn.StopReason != event.StopCompleted {
			out.Stop = turn.StopReason
			return out, nil
		}
	}
}

func reaskPrompt(problems []string) string {
	var b strings.Builder
	b.WriteString("Your final answer is not valid against the required JSON Schema:\n")
	for _, p := range problems {
		b.WriteString("- " + p + "\n")
	}
	b.WriteString("\nReply with only the corrected JSON value, valid against the schema given earlier: no prose before or after it.")
	return b.String()
}
