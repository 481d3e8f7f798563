package gemini

import "testing"

// Kimi CLI's own cases for its Gemini schema sanitising (packages/kosong/tests/
// test_google_genai_schema.py in MoonshotAI/kimi-cli), re-expressed: $schema, $id and
// $comment go, local references are written out and $defs dropped, a clean schema passes
// as it is; and, beyond them, a recursive schema is sent unchanged rather than unrolled.
func TestGeminiSchema(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"$schema", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"x":{"type":"integer"}}}`,
			`{"properties":{"x":{"type":"integer"}},"type":"object"}`},
		{"$id", `{"$id":"urn:example:tool","type":"object","properties":{"x":{"type":"integer"}}}`,
			`{"properties":{"x":{"type":"integer"}},"type":"object"}`},
		{"$comment", `{"$comment":"internal note","type":"object","properties":{"x":{"type":"integer"}}}`,
			`{"properties":{"x":{"type":"integer"}},"type":"object"}`},
		{"several", `{"$schema":"s","$id":"i","$comment":"c","type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`,
			`{"properties":{"name":{"type":"string"}},"required":["name"],"type":"object"}`},
		{"refs", `{"type":"object","properties":{"user":{"$ref":"#/$defs/User"}},"$defs":{"User":{"type":"object","properties":{"id":{"type":"integer"}}}}}`,
			`{"properties":{"user":{"properties":{"id":{"type":"integer"}},"type":"object"}},"type":"object"}`},
		{"clean", `{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}`,
			`{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}`},
		{"recursive", `{"$schema":"s","type":"object","properties":{"n":{"$ref":"#/$defs/N"}},"$defs":{"N":{"type":"object","properties":{"next":{"$ref":"#/$defs/N"}}}}}`,
			`{"$defs":{"N":{"properties":{"next":{"$ref":"#/$defs/N"}},"type":"object"}},"properties":{"n":{"$ref":"#/$defs/N"}},"type":"object"}`},
	} {
		if got := string(geminiSchema([]byte(tt.in))); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}
