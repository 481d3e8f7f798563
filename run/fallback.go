package run

import (
	"context"
	"sync"

	"github.com/kimi-run/kimi-run/model"
)

// fallbackModel is the run's model with --fallback-model behind it: the agent switches it
// over once, when a step's call failed transiently after every retry (agent.Agent.Fallback).
// It sits under the budget wrapper, so both models' calls count toward one budget, and the
// switch holds for the subagents and the compaction that share it.
type fallbackModel struct {
	mu   sync.Mutex
	cur  model.Model
	next model.Model // nil without a fallback, or once switched
	name string
}

// withFallback builds the model of the run from its client settings, with the fallback
// model NAME (same endpoint, key and settings) when one is given.
func withFallback(oc model.Config, name string) (*fallbackModel, error) {
	cur, err := model.New(oc)
	if err != nil {
		return nil, err
	}
	m := &fallbackModel{cur: cur}
	if name != "" {
		oc.Model = name
		if m.next, err = model.New(oc); err != nil {
			return nil, err
		}
		m.name = name
	}
	return m, nil
}

// Stream implements model.Model with the current model.
func (m *fallbackModel) Stream(ctx context.Context, req model.Request, h model.Handler) (model.Reply, error) {
	m.mu.Lock()
	cur := m.cur
	m.mu.Unlock()
	return cur.Stream(ctx, req, h)
}

// switchOver makes the fallback the current model and names it; ok is false when there is
// none (left).
func (m *fallbackModel) switchOver() (name string, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.next == nil {
		return "", false
	}
	m.cur, m.next = m.next, nil
	return m.name, true
}
