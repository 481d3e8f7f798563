package model

import (
	"bytes"
	"encoding/json"
	"sync"

	openai "github.com/sashabaranov/go-openai"

	"github.com/kimi-run/kimi-run/tools"
)

// toolsMark is the type of the one tool OpenAI.request puts in a request in place of its
// tools, and toolsMarkJSON that tool's field as go-openai encodes it: the transport puts
// the tools' encoding there. No string of a body holds it, as quotes in strings are escaped.
const toolsMark = "kimi-run:tools"

var toolsMarkJSON = []byte(`"tools":[{"type":"` + toolsMark + `"}]`)

// toolDefs keeps the encoding of each tool a client sent, and of the last list, so that a
// request encodes a tool only when its description or schema changed. The tools are most
// of a request body, and go-openai's encoder passes over each schema twice at every step.
type toolDefs struct {
	mu    sync.Mutex
	defs  map[string]toolDef
	names []string // the last list's tools, in order
	list  []byte   // and its encoding
}

type toolDef struct {
	desc   string
	schema []byte
	enc    []byte
}

// encode returns the JSON array of ts: the same bytes as go-openai's encoding of them.
func (d *toolDefs) encode(ts []tools.Tool) ([]byte, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.defs == nil {
		d.defs = map[string]toolDef{}
	}
	same := len(ts) == len(d.names)
	defs := make([]toolDef, len(ts))
	for i, t := range ts {
		name, desc, schema := t.Name(), t.Description(), t.Schema()
		def, ok := d.defs[name]
		if !ok || def.desc != desc || !bytes.Equal(def.schema, schema) {
			enc, err := json.Marshal(openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
				Name: name, Description: desc,
				// json.RawMessage, not []byte: a byte slice would be sent as base64.
				Parameters: json.RawMessage(schema),
			}})
			if err != nil {
				return nil, err
			}
			def = toolDef{desc: desc, schema: bytes.Clone(schema), enc: enc}
			d.defs[name], same = def, false
		}
		same = same && d.names[i] == name
		defs[i] = def
	}
	if same {
		return d.list, nil
	}
	d.names, d.list = make([]string, len(ts)), []byte{'['}
	for i, t := range ts {
		if i > 0 {
			d.list = append(d.list, ',')
		}
		d.names[i], d.list = t.Name(), append(d.list, defs[i].enc...)
	}
	d.list = append(d.list, ']')
	return d.list, nil
}
