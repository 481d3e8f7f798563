package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
)

// maxNameLen is the longest function name OpenAI-compatible APIs accept.
const maxNameLen = 64

// Tools returns the tools of every server that started, in the order the servers were given
// and each server listed them, named for the model:
//
//   - a tool keeps the server's own name, with characters other than ASCII letters, digits,
//     '_' and '-' replaced by '_' and the name cut to 64 characters (what the chat APIs accept);
//   - when that name is also a built-in's (builtin) or another server's tool's, every MCP
//     tool with it is called SERVER__NAME instead, the built-in keeping its name;
//   - if a name is still taken after that, _2, _3, … is appended in order.
//
// The same configuration and servers always give the same names.
func (s *Set) Tools(builtin []string) []*Tool {
	type entry struct {
		c    *conn
		base string
		def  int
	}
	var entries []entry
	count := map[string]int{}
	for _, c := range s.conns {
		if c.err != nil {
			continue
		}
		for i, t := range c.tools {
			b := sanitize(t.Name)
			entries = append(entries, entry{c: c, base: b, def: i})
			count[b]++
		}
	}
	used := map[string]bool{}
	for _, n := range builtin {
		used[n] = true
	}
	clash := func(b string) bool { return count[b] > 1 || used[b] }
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.base
		if clash(e.base) {
			names[i] = cut(sanitize(e.c.server.Name) + "__" + e.base)
		}
	}
	out := make([]*Tool, len(entries))
	for i, e := range entries {
		name := names[i]
		for n := 2; used[name]; n++ {
			suffix := fmt.Sprintf("_%d", n)
			name = cut(names[i][:min(len(names[i]), maxNameLen-len(suffix))] + suffix)
		}
		used[name] = true
		def := e.c.tools[e.def]
		out[i] = &Tool{
			name:   name,
			orig:   def.Name,
			desc:   describe(e.c.server.Name, def.Name, def.Description),
			schema: inputSchema(def.InputSchema),
			conn:   e.c,
			facts:  factsOf(def.Annotations),
		}
	}
	s.named = out
	return out
}

// sanitize makes s a valid function name: ASCII letters, digits, '_' and '-', at most 64.
func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "tool"
	}
	return cut(b.String())
}

func cut(s string) string {
	if len(s) > maxNameLen {
		return s[:maxNameLen]
	}
	return s
}

// describe prefixes a tool's description with where it comes from, as Kimi CLI does.
func describe(server, tool, desc string) string {
	head := fmt.Sprintf("MCP tool %q from the MCP server %q.", tool, server)
	if strings.TrimSpace(desc) == "" {
		return head
	}
	return head + "\n\n" + desc
}

// inputSchema is the server's input schema as JSON. Chat APIs want an object schema with a
// type, so a missing schema becomes an empty object schema and a missing "type" is set to
// "object"; nothing else is changed.
func inputSchema(s any) json.RawMessage {
	empty := json.RawMessage(`{"type":"object","properties":{}}`)
	raw, err := json.Marshal(s)
	if err != nil {
		return empty
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return empty
	}
	if _, ok := m["type"]; ok {
		return raw
	}
	m["type"] = json.RawMessage(`"object"`)
	if raw, err = json.Marshal(m); err != nil {
		return empty
	}
	return raw
}
