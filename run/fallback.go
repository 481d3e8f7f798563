package run

import (
	"context"
	"fmt"
	"sync"

	"github.com/kimi-run/kimi-run/agent"
	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/model"
)

// fallbackModel is the run's model with the --fallback-model chain behind it (issue 32 #6):
// the agent moves it on to the next model of the chain when a model call still failed
// transiently after every retry (agent.Agent.Fallback), and it stays there. It sits under
// the budget wrapper, so every model's calls count toward one budget, and the switch holds
// for the subagents and the compaction that share it. Each model of the chain may be of
// another provider and protocol: each has a client of its own.
type fallbackModel struct {
	mu    sync.Mutex
	links []*link
	cur   int // the index of the model in use
	// other makes a client of another model id on the run's own endpoint, for the calls of
	// a subagent an Agent call put on that model (model.WithModelID); nil: none is made.
	other func(id string) (model.Model, error)
	// others are those clients by id; othersUsed is what they spent, at prices unknown.
	others     map[string]model.Model
	othersUsed model.TokenUsage
}

// link is one model of the chain.
type link struct {
	m        model.Model
	name     string // as --fallback-model named it; the model id for the run's own
	id       string // the model id sent
	provider string // the provider type
	// prices are the model's, nil when unknown; usage is what its replies reported.
	prices *model.Prices
	usage  model.TokenUsage
	// window is the model's context window and whether requests carry a completion cap.
	window   int
	capCompl bool
}

// Stream implements model.Model with the current model, counting its usage.
func (m *fallbackModel) Stream(ctx context.Context, req model.Request, h model.Handler) (model.Reply, error) {
	if id := model.ModelID(ctx); id != "" {
		if other, ok, err := m.otherModel(id); err != nil {
			return model.Reply{}, err
		} else if ok {
			reply, err := other.Stream(ctx, req, h)
			if err == nil {
				m.mu.Lock()
				m.othersUsed.Add(reply.Usage)
				m.mu.Unlock()
			}
			return reply, err
		}
	}
	m.mu.Lock()
	l := m.links[m.cur]
	m.mu.Unlock()
	reply, err := l.m.Stream(ctx, req, h)
	if err == nil {
		m.mu.Lock()
		l.usage.Add(reply.Usage)
		m.mu.Unlock()
	}
	return reply, err
}

// otherModel is the client a call asking for the model id goes to: ok is false when the
// call goes to the chain as any other (the id is the run's own model's, or the run has
// fallen back to another model, whose provider may not know the id).
func (m *fallbackModel) otherModel(id string) (model.Model, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.other == nil || m.cur > 0 || id == m.links[0].id {
		return nil, false, nil
	}
	if c, ok := m.others[id]; ok {
		return c, true, nil
	}
	c, err := m.other(id)
	if err != nil {
		return nil, false, fmt.Errorf("model %q: %w", id, err)
	}
	if m.others == nil {
		m.others = map[string]model.Model{}
	}
	m.others[id] = c
	return c, true, nil
}

// switchOver moves on to the next model of the chain and says which; ok is false when
// none is left.
func (m *fallbackModel) switchOver() (agent.Switch, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cur+1 >= len(m.links) {
		return agent.Switch{}, false
	}
	from := m.links[m.cur]
	m.cur++
	to := m.links[m.cur]
	return agent.Switch{From: from.id, To: to.name, Provider: to.provider, MaxContext: to.window, CapCompletion: to.capCompl}, true
}

// prices are the prices of the model in use (the zero Prices when unknown), for the
// budget's cost cap, which config holds only with the prices of every model known.
func (m *fallbackModel) prices() model.Prices {
	m.mu.Lock()
	defer m.mu.Unlock()
	if p := m.links[m.cur].prices; p != nil {
		return *p
	}
	return model.Prices{}
}

// switched reports whether the run moved off its own model.
func (m *fallbackModel) switched() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cur > 0
}

// cost is the run's cost over every model that answered, each at its own prices; nil when
// one of them answered without known prices.
func (m *fallbackModel) cost() *float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.othersUsed != (model.TokenUsage{}) {
		return nil
	}
	total := 0.0
	for _, l := range m.links {
		if l.usage == (model.TokenUsage{}) {
			continue
		}
		if l.prices == nil {
			return nil
		}
		total += l.prices.Cost(l.usage)
	}
	return &total
}

// capsCompletion says whether requests to the endpoint e carry a completion cap (see
// agent.Compaction.CapCompletion).
func capsCompletion(e config.Endpoint) bool {
	return e.KimiProvider && e.ContextKnown && e.Generation.CompletionCap >= 0
}
