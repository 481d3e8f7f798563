package model

import (
	"context"
	"fmt"
	"sync"
)

// Prices are what a model charges, in US dollars per million tokens.
type Prices struct {
	Input       float64
	CachedInput float64
	Output      float64
	// CacheWrite is the price of input written to the prompt cache (Anthropic's
	// cache_creation_input_tokens).
	CacheWrite float64
}

// CacheWriteFactor is the cache-write price as a multiple of the input price when none is
// set: what Anthropic charges for writing its default five-minute cache.
const CacheWriteFactor = 1.25

// Cost returns the price of u in US dollars. Cached and cache-written tokens are part of
// the input tokens, as OpenAI-compatible providers report them, and are charged at the
// cached and cache-write prices.
func (p Prices) Cost(u TokenUsage) float64 {
	input := max(u.InputTokens, 0)
	cached := min(max(u.CachedTokens, 0), input)
	written := min(max(u.CacheWriteTokens, 0), input-cached)
	fresh := input - cached - written
	return (float64(fresh)*p.Input + float64(cached)*p.CachedInput + float64(written)*p.CacheWrite +
		float64(max(u.OutputTokens, 0))*p.Output) / 1e6
}

// Budget is a Model that bounds what a whole run may spend. Every model call of the run goes
// through it (the agent's steps, subagents, which share the parent's Model, compaction
// summaries and re-asks), so the check before each call is the one place a limit is kept.
//
// Before a call it estimates the prompt (four characters a token) and refuses the call with
// a *BudgetError when the prompt alone would not fit in what is left. Otherwise it caps the
// completion at what is left after the prompt, when the request already carries a cap (the
// context window is known) or when what is left is at most MaxUncappedRoom tokens. A larger
// cap is not sent: providers reject a max_completion_tokens above the model's longest reply,
// which is unknown here. So the total passes a limit by at most the amount the estimate fell
// short of the last prompt, plus, while more than MaxUncappedRoom was left and no window is
// known, the part of the last reply beyond what was left. What is left is reserved while a
// call runs, so subagents running in parallel cannot all spend the same remainder.
//
// Budget is safe for concurrent use.
type Budget struct {
	Model Model
	// MaxTokens bounds input plus output tokens over the run; 0 means no limit.
	MaxTokens int
	// MaxCostUSD bounds the cost of the run in US dollars; 0 means no limit. It needs Prices.
	MaxCostUSD float64
	Prices     Prices
	// PricesNow, when set, gives the prices of the model the next call goes to, in place of
	// Prices: a run that falls back to another model pays that model's prices from then on.
	PricesNow func() Prices

	mu          sync.Mutex
	spent       TokenUsage
	spentUSD    float64 // each call at the prices it was reserved at
	reservedTok int
	reservedUSD float64
}

// MaxUncappedRoom is the most completion tokens a Budget asks for on its own: every current
// model accepts a max_completion_tokens this small, and below it the cap is what keeps the
// last call within the budget.
const MaxUncappedRoom = 4096

// BudgetKind names the limit a BudgetError ran into.
type BudgetKind string

// The limits of a Budget.
const (
	BudgetTokens BudgetKind = "tokens"
	BudgetCost   BudgetKind = "cost"
	// BudgetToolCalls is the run's cap on tool calls (--max-tool-calls), which the agent
	// keeps; it ends a run the way the token and cost budgets do.
	BudgetToolCalls BudgetKind = "tool_calls"
)

// BudgetError means the run's token or cost budget cannot pay for another model call, or
// its tool-call budget for another tool call. It is never retried: waiting does not make
// the budget grow.
type BudgetError struct {
	Kind BudgetKind
	// Limit, Spent and Next are in tokens, US dollars or tool calls, by Kind. Next is the
	// estimated prompt of the model call that was refused, or the tool calls refused.
	Limit, Spent, Next float64
}

func (e *BudgetError) Error() string {
	if e.Kind == BudgetToolCalls {
		return fmt.Sprintf("tool-call budget used up: %d of %d tool calls made, and the model asked for %d more",
			int(e.Spent), int(e.Limit), int(e.Next))
	}
	if e.Kind == BudgetCost {
		return fmt.Sprintf("cost budget used up: $%.4f of $%.4f spent, and the next model call needs about $%.4f for its prompt alone",
			e.Spent, e.Limit, e.Next)
	}
	return fmt.Sprintf("token budget used up: %d of %d tokens spent, and the next model call needs about %d for its prompt alone",
		int(e.Spent), int(e.Limit), int(e.Next))
}

// Stream implements Model: it checks the budget, caps the completion, makes the call and
// counts what it cost.
func (b *Budget) Stream(ctx context.Context, req Request, h Handler) (Reply, error) {
	prompt := estimateRequest(req)
	prices := b.Prices
	if b.PricesNow != nil {
		prices = b.PricesNow()
	}
	limit, resTok, resUSD, err := b.reserve(prompt, req.MaxTokens, prices)
	if err != nil {
		return Reply{}, err
	}
	req.MaxTokens = limit
	r, err := b.Model.Stream(ctx, req, h)
	b.settle(resTok, resUSD, counted(r, err, prompt), prices)
	return r, err
}

// Spent returns the tokens counted so far (with estimates for calls whose usage the
// provider did not report).
func (b *Budget) Spent() TokenUsage {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}

// reserve checks that a call with a prompt of about prompt tokens fits, and reserves it.
// It returns the completion cap for the call (0: none) and what it reserved.
func (b *Budget) reserve(prompt, cap int, prices Prices) (limit, resTok int, resUSD float64, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	limit = cap
	if b.MaxTokens > 0 {
		used := b.spent.InputTokens + b.spent.OutputTokens + b.reservedTok
		room := b.MaxTokens - used - prompt
		if room < 1 {
			return 0, 0, 0, &BudgetError{Kind: BudgetTokens, Limit: float64(b.MaxTokens), Spent: float64(used), Next: float64(prompt)}
		}
		limit = capAt(limit, room)
	}
	if b.MaxCostUSD > 0 {
		used := b.spentUSD + b.reservedUSD
		promptUSD := float64(prompt) * prices.Input / 1e6
		room := b.MaxCostUSD - used - promptUSD
		if room <= 0 {
			return 0, 0, 0, &BudgetError{Kind: BudgetCost, Limit: b.MaxCostUSD, Spent: used, Next: promptUSD}
		}
		if prices.Output > 0 {
			n := int(room * 1e6 / prices.Output)
			if n < 1 {
				return 0, 0, 0, &BudgetError{Kind: BudgetCost, Limit: b.MaxCostUSD, Spent: used, Next: promptUSD}
			}
			limit = capAt(limit, n)
		}
		resUSD = promptUSD + float64(reserveFor(limit))*prices.Output/1e6
	}
	if b.MaxTokens > 0 {
		resTok = prompt + reserveFor(limit)
	}
	b.reservedTok += resTok
	b.reservedUSD += resUSD
	return limit, resTok, resUSD, nil
}

// reserveFor is the completion a running call holds back from the budget: its cap, or
// MaxUncappedRoom when it has none (more would refuse parallel calls for no reason).
func reserveFor(cap int) int {
	if cap <= 0 {
		return MaxUncappedRoom
	}
	return cap
}

// settle releases a call's reservation and counts what it used.
func (b *Budget) settle(resTok int, resUSD float64, u TokenUsage, prices Prices) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reservedTok -= resTok
	b.reservedUSD -= resUSD
	b.spentUSD += prices.Cost(u)
	b.spent.Add(u)
}

// capAt lowers a completion cap (0: none) to at most n. With no cap yet, one is set only
// when n is small enough for any model to accept (see MaxUncappedRoom).
func capAt(cap, n int) int {
	if cap <= 0 {
		if n <= MaxUncappedRoom {
			return n
		}
		return 0
	}
	return min(cap, n)
}

// counted is what a call is charged: the usage the provider reported or, when it reported
// none for a reply that did arrive (some servers never send usage), an estimate. A call
// that failed before anything streamed (a 429, a refused connection) costs nothing.
func counted(r Reply, err error, prompt int) TokenUsage {
	if r.Usage.InputTokens > 0 || r.Usage.OutputTokens > 0 {
		return r.Usage
	}
	out := len(r.Text) + len(r.Reasoning)
	for _, c := range r.ToolCalls {
		out += len(c.Name) + len(c.Arguments)
	}
	if err != nil && out == 0 {
		return TokenUsage{}
	}
	return TokenUsage{InputTokens: prompt, OutputTokens: out / 4}
}

// estimateRequest guesses the prompt tokens of req: its messages and the tool definitions
// sent with them, about four characters a token.
func estimateRequest(req Request) int {
	n := EstimateTokens(req.Messages)
	if !req.NoTools {
		chars := 0
		for _, t := range req.Tools {
			chars += len(t.Name()) + len(t.Description()) + len(t.Schema())
		}
		n += chars / 4
	}
	return n
}

var _ Model = (*Budget)(nil)
