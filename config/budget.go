package config

import (
	"math"

	"github.com/kimi-run/kimi-run/model"
)

// Budget is what --max-tokens-total, --max-cost-usd and the prices resolved to.
type Budget struct {
	MaxTokens int
	MaxCost   float64
	// Prices is nil when the input or output price is unknown.
	Prices *model.Prices
}

// resolveBudget reads the limits and the model's prices: flags first, then kimi-run's own
// keys in the model's config.toml entry. The cached-input price defaults to the input price,
// which can only overstate the cost; the cache-write price to what Anthropic charges for
// its five-minute cache, 1.25 times the input price (only Anthropic's protocol reports
// cache writes). A cost cap without prices is a usage error: counting
// an unpriced model as free would let the cap fail open.
func (s *Settings) resolveBudget(entry modelConfig) error {
	cli := &s.Flags
	b := &s.Budget
	b.MaxTokens, b.MaxCost = cli.MaxTokensTotal, cli.MaxCostUSD
	if cli.MaxTokensTotal < 0 {
		return Usagef("--max-tokens-total must be a positive number of tokens")
	}
	if cli.MaxCostUSD < 0 || math.IsNaN(cli.MaxCostUSD) || math.IsInf(cli.MaxCostUSD, 0) {
		return Usagef("--max-cost-usd must be a positive amount of US dollars")
	}
	in := firstPrice(cli.PriceInput, entry.PriceInput)
	cached := firstPrice(cli.PriceCachedInput, entry.PriceCachedInput)
	out := firstPrice(cli.PriceOutput, entry.PriceOutput)
	written := firstPrice(cli.PriceCacheWrite, entry.PriceCacheWrite)
	for _, p := range []*float64{in, cached, out, written} {
		if p != nil && (*p < 0 || math.IsNaN(*p) || math.IsInf(*p, 0)) {
			return Usagef("prices must be zero or positive US dollars per million tokens")
		}
	}
	if in != nil && out != nil {
		if cached == nil {
			cached = in
		}
		b.Prices = &model.Prices{Input: *in, CachedInput: *cached, Output: *out, CacheWrite: *in * model.CacheWriteFactor}
		if written != nil {
			b.Prices.CacheWrite = *written
		}
	}
	if b.MaxCost > 0 && b.Prices == nil {
		return Usagef("--max-cost-usd needs the model's prices: pass --price-input and --price-output (US dollars per million tokens), or set price_input and price_output in the model's config.toml entry")
	}
	return nil
}

func firstPrice(vals ...*float64) *float64 {
	for _, v := range vals {
		if v != nil {
			return v
		}
	}
	return nil
}

// CostUSD is the cost of the run's usage, or nil when the prices are unknown.
func (b Budget) CostUSD(u model.TokenUsage) *float64 {
	if b.Prices == nil {
		return nil
	}
	c := b.Prices.Cost(u)
	return &c
}
