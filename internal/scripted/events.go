package scripted

import "net/http"

// Events is a streamed answer made of the given data payloads, each sent as its own event
// ("data: PAYLOAD" and a blank line) and nothing else: no role chunk, finish or [DONE]
// added (a Gemini request gets them untranslated too). For streams in a provider's
// own shape, such as Gemini's GenerateContentResponse objects.
func Events(payloads ...string) Response {
	r := Response{status: http.StatusOK, header: http.Header{"Content-Type": {"text/event-stream"}}}
	for _, p := range payloads {
		r.steps = append(r.steps, step{kind: stepWrite, data: []byte("data: " + p + "\r\n\r\n")})
	}
	return r
}
