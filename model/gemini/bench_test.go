package gemini

import (
	"testing"

	"github.com/kimi-run/kimi-run/model"
)

// BenchmarkDecodeChunk decodes one streamed text chunk as the client does, a line as real
// providers send it, without the network: what one chunk costs the client.
func BenchmarkDecodeChunk(b *testing.B) {
	line := []byte(`{"candidates": [{"content": {"parts": [{"text": "The weather in Florence"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 146,"candidatesTokenCount": 4,"totalTokenCount": 150,"promptTokensDetails": [{"modality": "TEXT","tokenCount": 146}]},"modelVersion": "gemini-2.5-flash","responseId": "0ACzaenoJ4Hnz7IPzoP0gAw"}`)
	r := newGeminiReader(model.Handler{}, model.NewReplyMeter(1<<40), func() string { return "id" })
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if err := r.add(line); err != nil {
			b.Fatal(err)
		}
	}
}
