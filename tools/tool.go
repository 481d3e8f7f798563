// Package tools defines what a tool is for the agent and provides the built-in tools.
//
// A tool failure (bad arguments, a missing file, a command that exits non-zero) is a Result
// with IsError set: the model reads it and carries on. A Go error from Run means the run
// itself cannot go on and stops it.
package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// Tool is one capability offered to the model.
type Tool interface {
	// Name is the function name the model calls.
	Name() string
	// Description tells the model what the tool does and when to use it.
	Description() string
	// Schema is the JSON schema of the arguments object.
	Schema() json.RawMessage
	// Facts are what the tool does besides answering: files, network, changes (see Facts).
	Facts() Facts
	// Run executes one call. args is the raw JSON object the model sent.
	Run(ctx context.Context, args json.RawMessage) (Result, error)
}

// Result is what a tool call returns to the model.
type Result struct {
	// Output is the text sent back to the model. The agent caps it (see Cap) before sending.
	Output string
	// IsError marks a failed call; the model sees the output as an error report.
	IsError bool
	// Kimi is the same result as Kimi CLI's tool words it, for Kimi's message lines
	// (--print --output-format stream-json); nil when the tool has no Kimi counterpart.
	// The model always reads Output.
	Kimi *KimiText
	// Media are images or videos the result puts into the model's context beside Output
	// (ReadMediaFile); events and text renderers show Output only.
	Media []Media
	// Denied, when set, says that the call was refused rather than failed: a tool rule, the
	// sandbox, kimi-run's own guard or a hook did not let it do what it asked. The agent
	// reports it with a tool_denied event; Output is still what the model reads.
	Denied *Denial
}

// The sources of a Denial.
const (
	DeniedByRules   = "rules"   // --allowed-tools, --disallowed-tools, --tools
	DeniedBySandbox = "sandbox" // --sandbox's check of a write or of the network
	DeniedByGuard   = "guard"   // kimi-run's own refusals: a file that holds secrets
	DeniedByHook    = "hook"    // a PreToolUse hook that blocked the call
)

// SecretFileRule is the rule of the guard that keeps files holding secrets (.env, private
// keys, credential files) out of the model's context.
const SecretFileRule = "secret file"

// Denial is why a call was refused: what refused it, and the rule behind it.
type Denial struct {
	// Source is one of the DeniedBy constants.
	Source string
	// Rule names the rule as a person would look it up: Shell(rm *), sandbox, the hook's
	// command; empty for a call no allow rule matched.
	Rule string
	// Message says why, when Output does not (a command that ran and was refused a write);
	// empty: Output says it.
	Message string
}

// Deny returns r marked as refused by source under rule.
func (r Result) Deny(source, rule string) Result {
	r.Denied = &Denial{Source: source, Rule: rule}
	return r
}

// KimiText is a tool result in Kimi CLI's terms (its ToolReturnValue): a short message,
// shown as <system>…</system> (with "ERROR: " before it on failure), and the output.
type KimiText struct {
	Message string
	Output  string
}

// WithKimi returns r carrying Kimi CLI's wording of the same result.
func (r Result) WithKimi(message, output string) Result {
	r.Kimi = &KimiText{Message: message, Output: output}
	return r
}

// Errorf returns an error Result with a formatted message.
func Errorf(format string, a ...any) Result {
	return Result{Output: fmt.Sprintf(format, a...), IsError: true}
}

// Text returns a successful Result.
func Text(s string) Result { return Result{Output: s} }

// funcTool is a Tool built from a typed function by New.
type funcTool[In any] struct {
	name, desc string
	schema     json.RawMessage
	// fixed is a hand-written schema (newWithSchema), used in place of the derived one.
	fixed    json.RawMessage
	required func() []string
	facts    Facts
	fn       func(context.Context, In) (Result, error)

	// parsed is the schema decoded once, at the first call, for lenientArgs: decoding it
	// at every call cost a Shell call a tenth of a millisecond.
	parseOnce sync.Once
	parsed    map[string]any
}

// New builds a Tool whose arguments decode into In. The schema is derived from In's fields
// and their json, description and enum tags (see argsSchema); a field without omitempty is
// required. Limit placeholders such as {glob_limit} in the
// description and the tags are replaced by the values the code enforces (see limitText).
// Arguments are first loosened as Kimi CLI's pydantic models take them (lenientArgs);
// those that still do not decode become an error result the model can read. facts are what
// the tool does (see Facts). New panics if the schema cannot be derived: that is a
// programming error found at start-up.
//
// A built-in tool's schema is read from the table written at build time (schemas.txt),
// the same bytes without the reflection; any other tool's is derived when it is made.
func New[In any](name, description string, facts Facts, fn func(context.Context, In) (Result, error)) Tool {
	t := &funcTool[In]{name: name, desc: limitText().Replace(description), facts: facts, fn: fn}
	if raw, ok := tableSchema(name, reflect.TypeFor[In]()); ok {
		t.schema = raw
		t.required = sync.OnceValue(func() []string { return requiredOf(raw) })
		return t
	}
	raw, required, err := t.deriveSchema()
	if err != nil {
		panic(fmt.Sprintf("tools: schema for %s: %v", name, err))
	}
	t.schema = json.RawMessage(strings.ReplaceAll(string(raw), "{shell_run}", theShell().run()))
	t.required = func() []string { return required }
	return t
}

// newWithSchema is New with a hand-written schema in place of the derived one, for
// arguments whose Go type says less than the model should be told (StrReplaceFile's edit,
// an object or a list of them). Its required fields are the schema's.
func newWithSchema[In any](name, description, schema string, facts Facts, fn func(context.Context, In) (Result, error)) Tool {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(schema)); err != nil {
		panic(fmt.Sprintf("tools: schema for %s: %v", name, err)) // a programming error
	}
	raw := json.RawMessage(b.Bytes())
	return &funcTool[In]{name: name, desc: limitText().Replace(description), schema: raw, fixed: raw, facts: facts, fn: fn,
		required: sync.OnceValue(func() []string { return requiredOf(raw) })}
}

// deriveSchema makes the tool's schema without the table: the hand-written one, or one
// inferred from In with its limits filled, leaving {shell_run} as it is; and the names of
// its required fields.
func (t *funcTool[In]) deriveSchema() (json.RawMessage, []string, error) {
	if t.fixed != nil {
		return t.fixed, requiredOf(t.fixed), nil
	}
	def, err := argsSchema[In]()
	if err != nil {
		return nil, nil, err
	}
	raw, err := json.Marshal(def)
	if err != nil {
		return nil, nil, err
	}
	return json.RawMessage(limitsOnly().Replace(string(raw))), def.Required, nil
}

// requiredOf reads the required fields of a schema.
func requiredOf(schema json.RawMessage) []string {
	var s struct {
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		panic(fmt.Sprintf("tools: schema %s: %v", schema, err))
	}
	return s.Required
}

func (t *funcTool[In]) Name() string            { return t.name }
func (t *funcTool[In]) Description() string     { return t.desc }
func (t *funcTool[In]) Schema() json.RawMessage { return t.schema }
func (t *funcTool[In]) Facts() Facts            { return t.facts }

func (t *funcTool[In]) Run(ctx context.Context, args json.RawMessage) (Result, error) {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	t.parseOnce.Do(func() { _ = json.Unmarshal(t.schema, &t.parsed) })
	args = lenientArgs(t.parsed, args)
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(args, &fields); err != nil {
		return Errorf("invalid arguments for %s: expected a JSON object: %v", t.name, err), nil
	}
	for _, name := range t.required() {
		if _, ok := fields[name]; !ok {
			return Errorf("invalid arguments for %s: missing required field %q", t.name, name), nil
		}
	}
	var in In
	if err := json.Unmarshal(args, &in); err != nil {
		return Errorf("invalid arguments for %s: %v", t.name, err), nil
	}
	return t.fn(ctx, in)
}

// Scrubbed wraps ts so that clean rewrites every call's output before the model reads it:
// the run's credentials go, which a command can still read from a file although it never
// gets them in its environment (cat ~/.kimi/config.toml).
func Scrubbed(ts []Tool, clean func(string) string) []Tool {
	out := make([]Tool, len(ts))
	for i, t := range ts {
		out[i] = scrubbed{Tool: t, clean: clean}
	}
	return out
}

type scrubbed struct {
	Tool
	clean func(string) string
}

func (s scrubbed) Run(ctx context.Context, args json.RawMessage) (Result, error) {
	res, err := s.Tool.Run(ctx, args)
	res.Output = s.clean(res.Output)
	return res, err
}
