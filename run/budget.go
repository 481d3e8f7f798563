package run

import (
	"github.com/kimi-run/kimi-run/agent"
	"github.com/kimi-run/kimi-run/config"
)

// withBudget wraps m in an agent.Budget when the run has a limit. Every model call of the
// run goes through the one Model, so this covers subagents, compaction and re-asks too.
func withBudget(m agent.Model, b config.Budget) agent.Model {
	if b.MaxTokens == 0 && b.MaxCost == 0 {
		return m
	}
	bm := &agent.Budget{Model: m, MaxTokens: b.MaxTokens, MaxCostUSD: b.MaxCost}
	if b.Prices != nil {
		bm.Prices = *b.Prices
	}
	return bm
}
