package model

import "testing"

// BenchmarkDecodeChunk decodes one streamed chat-completions chunk as the client does
// (replyReader.add), a line as real providers send it, without the network: what one chunk
// costs the client (each protocol package has the same benchmark). Figures are in
// docs/performance.md.
//
//	go test ./model/ -run '^$' -bench DecodeChunk -benchmem
func BenchmarkDecodeChunk(b *testing.B) {
	lines := map[string]string{
		"chat": `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1767225600,"model":"kimi-k2","choices":[{"index":0,"delta":{"content":"The weather in Florence"},"finish_reason":null}]}`,
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
}
