package anthropic

import (
	"testing"

	"github.com/kimi-run/kimi-run/model"
)

// BenchmarkDecodeChunk decodes one streamed text chunk as the client does, a line as real
// providers send it, without the network: what one chunk costs the client.
func BenchmarkDecodeChunk(b *testing.B) {
	line := []byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"The weather in Florence"}}`)
	r := newAnthropicReader(model.Handler{}, model.NewReplyMeter(1<<40), func() string { return "id" })
	if err := r.add([]byte(`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if err := r.add(line); err != nil {
			b.Fatal(err)
		}
	}
}
