package model

import (
	"math"
	"testing"
)

// Cost prices each part of the prompt at its own price: cached and cache-written tokens
// are part of the input tokens, and never counted twice even when a provider's counts
// overlap.
func TestPricesCost(t *testing.T) {
	p := Prices{Input: 3, CachedInput: 0.3, Output: 15, CacheWrite: 3.75}
	tests := []struct {
		name string
		u    TokenUsage
		want float64
	}{
		{name: "plain", u: TokenUsage{InputTokens: 1000, OutputTokens: 100}, want: (1000*3 + 100*15) / 1e6},
		{name: "cached", u: TokenUsage{InputTokens: 1000, CachedTokens: 800, OutputTokens: 100}, want: (200*3 + 800*0.3 + 100*15) / 1e6},
		// Anthropic: input_tokens 12, cache_creation 30, cache_read 400 (TestAnthropicText).
		{name: "cache read and write", u: TokenUsage{InputTokens: 442, CachedTokens: 400, CacheWriteTokens: 30, OutputTokens: 9}, want: (12*3 + 400*0.3 + 30*3.75 + 9*15) / 1e6},
		{name: "counts that overlap", u: TokenUsage{InputTokens: 100, CachedTokens: 80, CacheWriteTokens: 50}, want: (80*0.3 + 20*3.75) / 1e6},
		{name: "negative counts", u: TokenUsage{InputTokens: -5, CacheWriteTokens: -1, OutputTokens: -2}, want: 0},
	}
	for _, tt := range tests {
		if got := p.Cost(tt.u); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: cost = %v, want %v", tt.name, got, tt.want)
		}
	}
}
