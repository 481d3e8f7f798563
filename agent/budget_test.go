package agent_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/agent"
	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/model"
)

// budgeted puts a Budget between the harness's agent and its model.
func budgeted(h *harness, b *model.Budget) *model.Budget {
	b.Model = h.agent.Model
	h.agent.Model = b
	return b
}

func TestBudgetStopsBeforeTheCallThatWouldNotFit(t *testing.T) {
	// Each reply reports 1000 prompt + 100 completion tokens. After two calls 2200 of 2210
	// are spent, and the third call's prompt alone is estimated at more than 10 tokens.
	h := newHarness(t, []scripted.Response{
		scripted.Reply(scripted.Call("Think", `{}`), scripted.Usage(1000, 100, 0)),
		scripted.Reply(scripted.Call("Think", `{"again":1}`), scripted.Usage(1000, 100, 0)),
		scripted.Text("never sent"),
	}, "Think")
	b := budgeted(h, &model.Budget{MaxTokens: 2210})
	_, err := h.turn(t, "think twice")
	var be *model.BudgetError
	if !errors.As(err, &be) || be.Kind != model.BudgetTokens {
		t.Fatalf("err = %v, want a token BudgetError", err)
	}
	if model.Retryable(err) {
		t.Errorf("a budget error is retryable")
	}
	if n := len(h.srv.Requests()); n != 2 {
		t.Errorf("server got %d requests, want 2 (the third must not be sent)", n)
	}
	if len(h.sink.Of(event.TypeRetry)) != 0 {
		t.Errorf("the budget error was retried")
	}
	if got := b.Spent(); got.InputTokens != 2000 || got.OutputTokens != 200 {
		t.Errorf("spent = %+v", got)
	}
}

func TestBudgetCapsTheCompletion(t *testing.T) {
	tests := []struct {
		name      string
		max       int
		window    int // the context window the agent knows; 0: unknown
		low, high float64
	}{
		// The prompt is a few dozen tokens: the cap is what is left of 3000 after it.
		{name: "little left", max: 3000, low: 2900, high: 3000},
		// Plenty left and no window known: no cap, since a cap above the model's longest
		// reply would be rejected.
		{name: "plenty left", max: 1_000_000},
		// The window is known, so the agent sends a cap of its own; the budget lowers it.
		{name: "window known", max: 20_000, window: 100_000, low: 19_900, high: 20_000},
		{name: "window smaller", max: 1_000_000, window: 10_000, low: 8_000, high: 10_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, []scripted.Response{scripted.Text("short")})
			if tt.window > 0 {
				h.agent.Compaction = agent.Compaction{MaxContext: tt.window, CapCompletion: true}
			}
			budgeted(h, &model.Budget{MaxTokens: tt.max})
			if _, err := h.turn(t, "hello"); err != nil {
				t.Fatal(err)
			}
			got, ok := h.srv.Requests()[0].Body["max_completion_tokens"].(float64)
			if tt.high == 0 {
				if ok {
					t.Errorf("max_completion_tokens = %v, want none", got)
				}
				return
			}
			if !ok || got < tt.low || got >= tt.high {
				t.Errorf("max_completion_tokens = %v, want in [%v, %v)", h.srv.Requests()[0].Body["max_completion_tokens"], tt.low, tt.high)
			}
		})
	}
}

func TestBudgetCost(t *testing.T) {
	// 100 prompt tokens, 40 of them cached, and 20 completion tokens per reply.
	h := newHarness(t, []scripted.Response{
		scripted.Reply(scripted.Call("Think", `{}`), scripted.Usage(100, 20, 40)),
		scripted.Reply(scripted.Say("done"), scripted.Usage(100, 20, 40)),
	}, "Think")
	prices := model.Prices{Input: 2, CachedInput: 0.5, Output: 10}
	// One call costs (60*2 + 40*0.5 + 20*10) / 1e6 = $0.00034; the second call's prompt
	// (over 10 tokens, $0.00002) no longer fits in $0.00036.
	b := budgeted(h, &model.Budget{MaxCostUSD: 0.00036, Prices: prices})
	_, err := h.turn(t, "go")
	var be *model.BudgetError
	if !errors.As(err, &be) || be.Kind != model.BudgetCost {
		t.Fatalf("err = %v, want a cost BudgetError", err)
	}
	if math.Abs(prices.Cost(b.Spent())-0.00034) > 1e-12 {
		t.Errorf("cost = %v", prices.Cost(b.Spent()))
	}
	// The first call's completion was capped at what the dollars left could buy.
	first, _ := h.srv.Requests()[0].Body["max_completion_tokens"].(float64)
	if first <= 0 || first > 36 {
		t.Errorf("max_completion_tokens = %v, want at most $0.00036/($10/M) = 36", first)
	}
}

// TestBudgetCostAtEachCallsPrices: with PricesNow (a fallback chain whose models charge
// differently), each call is charged, and the next one's room computed, at the prices of
// the model it went to.
func TestBudgetCostAtEachCallsPrices(t *testing.T) {
	h := newHarness(t, []scripted.Response{
		scripted.Reply(scripted.Call("Think", `{}`), scripted.Usage(100, 20, 0)),
		scripted.Reply(scripted.Say("done"), scripted.Usage(100, 20, 0)),
	}, "Think")
	cheap, dear := model.Prices{Input: 1, CachedInput: 1, Output: 1}, model.Prices{Input: 100, CachedInput: 100, Output: 100}
	calls := 0
	// The first call at $1/M costs $0.00012; the second, at $100/M, can afford fewer than
	// 499 completion tokens with what is left of $0.05.
	budgeted(h, &model.Budget{MaxCostUSD: 0.05, PricesNow: func() model.Prices {
		calls++
		if calls == 1 {
			return cheap
		}
		return dear
	}})
	if _, err := h.turn(t, "go"); err != nil {
		t.Fatal(err)
	}
	second, _ := h.srv.Requests()[1].Body["max_completion_tokens"].(float64)
	if second <= 0 || second > (0.05-0.00012)*1e6/100 {
		t.Errorf("second call's max_completion_tokens = %v, want what $0.04988 buys at $100/M (under 499)", second)
	}
	if first, ok := h.srv.Requests()[0].Body["max_completion_tokens"]; ok {
		t.Errorf("first call capped at %v: at $1/M the budget leaves plenty", first)
	}
}

func TestBudgetCountsCompaction(t *testing.T) {
	// Turn 1 spends 120 tokens; before turn 2 the 130-token window is compacted. The
	// summary request (a prompt of about 300 tokens) fits in 550 and reports 400 tokens, so
	// 520 are spent and the step after it, whose prompt is over 30 tokens, does not fit.
	h := newHarness(t, []scripted.Response{
		scripted.Text("First answer about the parser."),
		scripted.Reply(scripted.Say("<current_focus>the summary</current_focus>"), scripted.Usage(100, 300, 0)),
		scripted.Text("never sent"),
	})
	h.agent.Compaction = agent.Compaction{MaxContext: 130}
	b := budgeted(h, &model.Budget{MaxTokens: 550})
	if _, err := h.turn(t, "explain the parser"); err != nil {
		t.Fatal(err)
	}
	_, err := h.turn(t, "now write tests")
	var be *model.BudgetError
	if !errors.As(err, &be) {
		t.Fatalf("err = %v, want a BudgetError", err)
	}
	// The compaction summary went through the budget (it is the second request) and the
	// budget stopped the step after it; no fallback truncation replaced the refusal.
	if n := len(h.srv.Requests()); n != 2 {
		t.Errorf("server got %d requests, want 2", n)
	}
	if got := b.Spent(); got.InputTokens+got.OutputTokens != 520 {
		t.Errorf("spent = %+v, want both calls counted (520 tokens)", got)
	}
	for _, e := range h.sink.Of(event.TypeCompactionEnd) {
		if e.Data.(event.CompactionEnd).Fallback {
			t.Errorf("compaction fell back to truncation on a budget error")
		}
	}
}

func TestPricesCost(t *testing.T) {
	p := model.Prices{Input: 1, CachedInput: 0.25, Output: 4}
	tests := []struct {
		u    model.TokenUsage
		want float64
	}{
		{model.TokenUsage{}, 0},
		{model.TokenUsage{InputTokens: 1_000_000}, 1},
		{model.TokenUsage{InputTokens: 1_000_000, CachedTokens: 1_000_000}, 0.25},
		{model.TokenUsage{InputTokens: 2_000_000, CachedTokens: 1_000_000, OutputTokens: 500_000}, 1 + 0.25 + 2},
		// A server that reports more cached than input tokens is not charged twice.
		{model.TokenUsage{InputTokens: 100, CachedTokens: 500}, 100 * 0.25 / 1e6},
	}
	for _, tt := range tests {
		if got := p.Cost(tt.u); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Cost(%+v) = %v, want %v", tt.u, got, tt.want)
		}
	}
}

func TestToolCapEndsTheRunAfterTheStepThatPassedIt(t *testing.T) {
	// Two calls per reply against a cap of three: the first step runs both, the second one
	// of its two; the other is answered "not run" and the turn ends with the budget error,
	// every call of the step answered, and no third request.
	h := newHarness(t, []scripted.Response{
		scripted.ToolCalls(scripted.Call("Think", `{"n":1}`), scripted.Call("Think", `{"n":2}`)),
		scripted.ToolCalls(scripted.Call("Think", `{"n":3}`), scripted.Call("Think", `{"n":4}`)),
		scripted.Text("never sent"),
	}, "Think")
	h.agent.ToolCap = agent.NewToolCap(3)
	_, err := h.turn(t, "think four times")
	var be *model.BudgetError
	if !errors.As(err, &be) || be.Kind != model.BudgetToolCalls {
		t.Fatalf("err = %v, want a tool-call BudgetError", err)
	}
	if be.Error() != "tool-call budget used up: 3 of 3 tool calls made, and the model asked for 1 more" {
		t.Errorf("message = %q", be.Error())
	}
	if model.Retryable(err) {
		t.Errorf("a budget error is retryable")
	}
	if got := h.tools["Think"].got(); len(got) != 3 {
		t.Errorf("the tool ran %d times, want 3: %v", len(got), got)
	}
	if n := len(h.srv.Requests()); n != 2 {
		t.Errorf("server got %d requests, want 2", n)
	}
	results := h.sink.Of(event.TypeToolResult)
	if len(results) != 4 {
		t.Fatalf("%d tool results, want every call answered", len(results))
	}
	refused := 0
	for _, e := range results {
		r := e.Data.(event.ToolResult)
		if r.IsError && strings.Contains(r.Output, "--max-tool-calls") {
			refused++
		}
	}
	if refused != 1 {
		t.Errorf("%d results say the cap refused them, want 1", refused)
	}
	if st := h.agent.Stats(); st.ToolCalls != 4 {
		t.Errorf("stats count %d tool calls, want the 4 the model made", st.ToolCalls)
	}
}

func TestToolCapAtTheLimitIsNoError(t *testing.T) {
	// Exactly as many calls as the cap allows, then an answer: the run succeeds.
	h := newHarness(t, []scripted.Response{
		scripted.ToolCalls(scripted.Call("Think", `{"n":1}`), scripted.Call("Think", `{"n":2}`)),
		scripted.Text("done"),
	}, "Think")
	h.agent.ToolCap = agent.NewToolCap(2)
	out, err := h.turn(t, "think twice")
	if err != nil || out.FinalText != "done" {
		t.Fatalf("outcome %+v, err %v", out, err)
	}
	if agent.NewToolCap(0) != nil {
		t.Errorf("a cap of 0 is not 'no cap'")
	}
}
