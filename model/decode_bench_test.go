package model

import "testing"

// BenchmarkDecodeChunk decodes one streamed text chunk of each protocol as its client
// does (chat completions: replyReader.add; Gemini: geminiReader.add), a line as real
// providers send it, without the network: what one chunk costs the client. Figures are in
// docs/performance.md.
//
//	go test ./model/ -run '^$' -bench DecodeChunk -benchmem
func BenchmarkDecodeChunk(b *testing.B) {
	lines := map[string]string{
		"chat":      `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1767225600,"model":"kimi-k2","choices":[{"index":0,"delta":{"content":"The weather in Florence"},"finish_reason":null}]}`,
		"anthropic": `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"The weather in Florence"}}`,
		"gemini":    `{"candidates": [{"content": {"parts": [{"text": "The weather in Florence"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 146,"candidatesTokenCount": 4,"totalTokenCount": 150,"promptTokensDetails": [{"modality": "TEXT","tokenCount": 146}]},"modelVersion": "gemini-2.5-flash","responseId": "0ACzaenoJ4Hnz7IPzoP0gAw"}`,
	}
	b.Run("chat", func(b *testing.B) {
		line := []byte(lines["chat"])
		r := &replyReader{size: NewReplyMeter(1 << 40), asm: newAssembler(func() string { return "id" }, nil)}
		b.SetBytes(int64(len(line)))
		for b.Loop() {
			if err := r.add(line); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("anthropic", func(b *testing.B) {
		line := []byte(lines["anthropic"])
		r := newAnthropicReader(Handler{}, NewReplyMeter(1<<40), func() string { return "id" })
		if err := r.add([]byte(`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(line)))
		for b.Loop() {
			if err := r.add(line); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("gemini", func(b *testing.B) {
		line := []byte(lines["gemini"])
		r := newGeminiReader(Handler{}, NewReplyMeter(1<<40), func() string { return "id" })
		b.SetBytes(int64(len(line)))
		for b.Loop() {
			if err := r.add(line); err != nil {
				b.Fatal(err)
			}
		}
	})
}
