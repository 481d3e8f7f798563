package model_test

import (
	"context"
	"testing"

	"github.com/kimi-run/kimi-run/model"
)

// replyWith is a model that answers every call with its usage.
type replyWith model.TokenUsage

func (u replyWith) Stream(context.Context, model.Request, model.Handler) (model.Reply, error) {
	return model.Reply{Text: "ok", Usage: model.TokenUsage(u)}, nil
}

// A chain answers on its first model until moved on, then on the next for good; its cost
// sums each model's usage at that model's prices, and is unknown once a model without
// prices answered.
func TestChainMovesOnAndCostsEachModelAtItsPrices(t *testing.T) {
	cheap, dear := &model.Prices{Input: 1, Output: 1}, &model.Prices{Input: 10, Output: 10}
	c := model.NewChain(
		model.Link{Model: replyWith{InputTokens: 1e6}, Name: "own", ID: "own", Prices: cheap},
		model.Link{Model: replyWith{OutputTokens: 1e6}, Name: "backup", ID: "backup-id", Provider: "anthropic", Prices: dear},
		model.Link{Model: replyWith{InputTokens: 1}, Name: "unpriced"},
	)
	ask := func() {
		if _, err := c.Stream(t.Context(), model.Request{}, model.Handler{}); err != nil {
			t.Fatal(err)
		}
	}
	ask()
	if c.Switched() || c.Prices() != *cheap {
		t.Fatalf("switched %v, prices %+v before any move", c.Switched(), c.Prices())
	}
	from, to, ok := c.Next()
	if !ok || from.ID != "own" || to.Name != "backup" || to.Provider != "anthropic" {
		t.Fatalf("Next = %+v, %+v, %v", from, to, ok)
	}
	ask()
	if got := c.Cost(); !c.Switched() || got == nil || *got != 1+10 {
		t.Fatalf("cost = %v after the second model answered, want 11", got)
	}
	if _, _, ok := c.Next(); !ok {
		t.Fatal("the third model was not reached")
	}
	ask()
	if got := c.Cost(); got != nil {
		t.Errorf("cost = %v with an unpriced model's answer, want unknown", *got)
	}
	if _, _, ok := c.Next(); ok {
		t.Error("moved past the last model")
	}
}

// A call that asks for another model id goes to the client Other makes for it (made once),
// while the chain is on its first model; its usage makes the cost unknown.
func TestChainOtherModelID(t *testing.T) {
	made := 0
	c := model.NewChain(model.Link{Model: replyWith{InputTokens: 1}, ID: "own", Prices: &model.Prices{Input: 1}})
	c.Other = func(id string) (model.Model, error) {
		made++
		return replyWith{OutputTokens: 7}, nil
	}
	ctx := model.WithModelID(t.Context(), "other")
	for range 2 {
		if r, err := c.Stream(ctx, model.Request{}, model.Handler{}); err != nil || r.Usage.OutputTokens != 7 {
			t.Fatalf("reply %+v, %v: not the other model's", r, err)
		}
	}
	if r, _ := c.Stream(model.WithModelID(t.Context(), "own"), model.Request{}, model.Handler{}); r.Usage.InputTokens != 1 || made != 1 {
		t.Errorf("own id answered by %+v; %d clients made, want 1", r, made)
	}
	if got := c.Cost(); got != nil {
		t.Errorf("cost = %v after the other model answered, want unknown", *got)
	}
}
