package run

import (
	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/model"
)

// withBudget wraps m in an model.Budget when the run has a limit. Every model call of the
// run goes through the one Model, so this covers subagents, compaction and re-asks too.
// prices gives the prices of the model in use, which a fallback changes.
func withBudget(m model.Model, b config.Budget, prices func() model.Prices) model.Model {
	if b.MaxTokens == 0 && b.MaxCost == 0 {
		return m
	}
	bm := &model.Budget{Model: m, MaxTokens: b.MaxTokens, MaxCostUSD: b.MaxCost, PricesNow: prices}
	if b.Prices != nil {
		bm.Prices = *b.Prices
	}
	return bm
}
