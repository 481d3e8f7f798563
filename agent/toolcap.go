package agent

import (
	"fmt"
	"sync/atomic"

	"github.com/kimi-run/kimi-run/model"
)

// ToolCap is the run's cap on tool calls (--max-tool-calls), shared by an agent and its
// subagents as the model's token budget is. A call past the cap does not run; the step
// that asked for it then ends the turn with a *model.BudgetError, so the run ends as the
// other budgets end it: the session synced and resumable, exit 6.
type ToolCap struct {
	limit   int64
	used    atomic.Int64
	refused atomic.Int64
}

// NewToolCap returns the cap of limit calls; nil (no cap) when limit is 0 or less.
func NewToolCap(limit int) *ToolCap {
	if limit <= 0 {
		return nil
	}
	return &ToolCap{limit: int64(limit)}
}

// take counts one call that is about to run; false means the cap is reached and the call
// must not run.
func (b *ToolCap) take() bool {
	if b == nil {
		return true
	}
	if b.used.Add(1) > b.limit {
		b.used.Add(-1)
		b.refused.Add(1)
		return false
	}
	return true
}

// refusal is the result a call past the cap gets.
func (b *ToolCap) refusal() string {
	return fmt.Sprintf("not run: this run may make at most %d tool calls (--max-tool-calls) and has made them all; the run stops here", b.limit)
}

// err is the error that ends the run once a call was refused; nil before that.
func (b *ToolCap) err() error {
	if b == nil || b.refused.Load() == 0 {
		return nil
	}
	return &model.BudgetError{Kind: model.BudgetToolCalls, Limit: float64(b.limit), Spent: float64(b.used.Load()), Next: float64(b.refused.Load())}
}
