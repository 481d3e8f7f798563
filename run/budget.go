package run

import (
	"math"

	"github.com/kimi-run/kimi-run/agent"
)

// budgetConfig is what --max-tokens-total, --max-cost-usd and the prices resolved to.
type budgetConfig struct {
	maxTokens int
	maxCost   float64
	// prices is nil when the input or output price is unknown.
	prices *agent.Prices
}

// resolveBudget reads the limits and the model's prices: flags first, then kimi-run's own
// keys in the model's config.toml entry. The cached-input price defaults to the input price,
// which can only overstate the cost. A cost cap without prices is a usage error: counting
// an unpriced model as free would let the cap fail open.
func resolveBudget(cli *CLI, entry modelConfig) (budgetConfig, error) {
	b := budgetConfig{maxTokens: cli.MaxTokensTotal, maxCost: cli.MaxCostUSD}
	if cli.MaxTokensTotal < 0 {
		return b, usagef("--max-tokens-total must be a positive number of tokens")
	}
	if cli.MaxCostUSD < 0 || math.IsNaN(cli.MaxCostUSD) || math.IsInf(cli.MaxCostUSD, 0) {
		return b, usagef("--max-cost-usd must be a positive amount of US dollars")
	}
	in := firstPrice(cli.PriceInput, entry.PriceInput)
	cached := firstPrice(cli.PriceCachedInput, entry.PriceCachedInput)
	out := firstPrice(cli.PriceOutput, entry.PriceOutput)
	for _, p := range []*float64{in, cached, out} {
		if p != nil && (*p < 0 || math.IsNaN(*p) || math.IsInf(*p, 0)) {
			return b, usagef("prices must be zero or positive US dollars per million tokens")
		}
	}
	if in != nil && out != nil {
		if cached == nil {
			cached = in
		}
		b.prices = &agent.Prices{Input: *in, CachedInput: *cached, Output: *out}
	}
	if b.maxCost > 0 && b.prices == nil {
		return b, usagef("--max-cost-usd needs the model's prices: pass --price-input and --price-output (US dollars per million tokens), or set price_input and price_output in the model's config.toml entry")
	}
	return b, nil
}

func firstPrice(vals ...*float64) *float64 {
	for _, v := range vals {
		if v != nil {
			return v
		}
	}
	return nil
}

// withBudget wraps m in an agent.Budget when the run has a limit. Every model call of the
// run goes through the one Model, so this covers subagents, compaction and re-asks too.
func withBudget(m agent.Model, b budgetConfig) agent.Model {
	if b.maxTokens == 0 && b.maxCost == 0 {
		return m
	}
	bm := &agent.Budget{Model: m, MaxTokens: b.maxTokens, MaxCostUSD: b.maxCost}
	if b.prices != nil {
		bm.Prices = *b.prices
	}
	return bm
}

// costUSD is the cost of the run's usage, or nil when the prices are unknown.
func (b budgetConfig) costUSD(u agent.TokenUsage) *float64 {
	if b.prices == nil {
		return nil
	}
	c := b.prices.Cost(u)
	return &c
}
