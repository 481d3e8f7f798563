package run

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
	"github.com/kimi-run/kimi-run/ralph"
)

// schemaReasks is how many times a final answer that does not match --json-schema is asked
// for again before the run fails with exit 7.
const schemaReasks = 2

// outputSchema is a resolved --json-schema and its text, which the model is shown.
type outputSchema struct {
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

// loadSchema reads --json-schema: inline JSON when the value starts like a JSON object (or
// is true/false, which are schemas too), a file otherwise. A $ref may name other local files
// (relative to the schema file), never a URL: a run does not fetch its schema.
func loadSchema(ctx context.Context, spec string) (*outputSchema, error) {
	if strings.TrimSpace(spec) == "" {
		return nil, nil
	}
	raw, base := []byte(spec), ""
	if t := strings.TrimSpace(spec); !strings.HasPrefix(t, "{") && t != "true" && t != "false" {
		data, err := infile.Read(ctx, spec, infile.Schema)
		if err != nil {
			return nil, usagef("--json-schema: %w", err)
		}
		abs, err := filepath.Abs(spec)
		if err != nil {
			return nil, usagef("--json-schema: %w", err)
		}
		raw, base = data, (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
	}
	name := schemaName(spec)
	sch, err := parseSchema(raw)
	if err != nil {
		return nil, usagef("--json-schema %s is not a JSON Schema: %v", name, oneLineErr(err))
	}
	if err := checkSchemaValues(sch); err != nil {
		return nil, usagef("--json-schema %s is not a valid JSON Schema: %v", name, err)
	}
	if !schemaVersions[sch.Schema] {
		return nil, usagef("--json-schema %s: $schema %q is not supported; use draft 2020-12 or draft 7", name, sch.Schema)
	}
	resolved, err := sch.Resolve(&jsonschema.ResolveOptions{BaseURI: base, Loader: func(u *url.URL) (*jsonschema.Schema, error) { return fileLoader(ctx, u) }})
	if err != nil {
		return nil, usagef("--json-schema %s: %v", name, oneLineErr(err))
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, usagef("--json-schema %s is not JSON: %v", name, err)
	}
	return &outputSchema{schema: resolved, text: compact.String()}, nil
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

// instruction is added to every prompt of the run, so the model knows the shape of its
// final answer from the start (a Ralph or flow run does not know which turn is its last,
// and a fresh-context iteration forgets earlier prompts). The user prompt rather than the
// system prompt carries it: a resumed session keeps its stored system prompt.
func (s *outputSchema) instruction(flow bool) string {
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

// check validates an answer. It returns the answer as compact JSON when it is valid, and
// otherwise the problem found.
func (s *outputSchema) check(answer string) (json.RawMessage, []string) {
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
		return nil, []string{strings.TrimPrefix(oneLineErr(err), "validating root: ")}
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

// SchemaError is a final answer that still does not match --json-schema after the re-asks.
type SchemaError struct {
	Problems []string
	Answer   string
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("the final answer does not match --json-schema after %d re-asks: %s. Last answer: %s",
		schemaReasks, strings.Join(e.Problems, "; "), clipLine(e.Answer, 500))
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

// schemaTurner adds the output-format instruction to the prompt of every turn it runs.
type schemaTurner struct {
	ralph.Turner
	note string
}

// Turn implements ralph.Turner.
func (s schemaTurner) Turn(ctx context.Context, spec event.TurnSpec) (event.TurnOutcome, error) {
	spec.Prompt += s.note
	return s.Turner.Turn(ctx, spec)
}

// settle checks the final answer of a run that otherwise succeeded, and asks again with the
// validator's findings at most schemaReasks times. A re-ask is an ordinary turn in the same
// session (it counts toward the steps and the budget). warn reports each re-ask.
func (s *outputSchema) settle(ctx context.Context, t ralph.Turner, out outcome, warn func(string)) (outcome, error) {
	answer := out.finalText
	for attempt := 0; ; attempt++ {
		value, problems := s.check(answer)
		if problems == nil {
			out.structured = value
			return out, nil
		}
		if attempt == schemaReasks {
			return out, &SchemaError{Problems: problems, Answer: answer}
		}
		warn(fmt.Sprintf("the final answer does not match --json-schema (%s); asking again (%d/%d)",
			clipLine(strings.Join(problems, "; "), 200), attempt+1, schemaReasks))
		turn, err := t.Turn(ctx, event.TurnSpec{Prompt: reaskPrompt(problems)})
		if turn.FinalText != "" || err == nil {
			out.finalText = ralph.StripChoice(turn.FinalText)
		}
		if err != nil {
			return out, err
		}
		if turn.StopReason != event.StopCompleted {
			out.stop = turn.StopReason
			if out.flow {
				out.flowResult.Outcome, out.flowResult.StopReason = ralph.OutcomeTurnStopped, turn.StopReason
			}
			return out, nil
		}
		answer = out.finalText
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

// schemaDue reports whether the run reached a final answer that the schema should judge:
// it ended without an error and without a limit.
func schemaDue(out outcome, err error) bool {
	if err != nil {
		return false
	}
	if out.flow {
		return out.flowResult.Outcome == ralph.OutcomeStop || out.flowResult.Outcome == ralph.OutcomeCompleted
	}
	return out.stop == event.StopCompleted
}
