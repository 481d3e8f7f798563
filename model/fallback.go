package model

import (
	"context"
	"fmt"
	"sync"
)

// Chain is a model with the --fallback-model chain behind it: Next moves it on to the next
// model of the chain (the agent asks when a model call still failed transiently after
// every retry), and it stays there. Each model may be of another provider and protocol:
// each has a client of its own. A Budget over a Chain counts every model's calls toward
// one budget, at the prices of the model in use.
type Chain struct {
	// Other makes a client of another model id on the first model's endpoint, for the calls
	// of a subagent an Agent call put on that model (WithModelID); nil: none is made.
	Other func(id string) (Model, error)

	mu    sync.Mutex
	links []Link
	usage []TokenUsage // what each link's replies reported
	cur   int          // the index of the model in use
	// others are Other's clients by id; othersUsed is what they spent, at prices unknown.
	others     map[string]Model
	othersUsed TokenUsage
}

// Link is one model of a Chain.
type Link struct {
	Model Model
	// Name is the model as --fallback-model named it; the model id for the run's own.
	Name string
	// ID is the model id sent; Provider the provider type.
	ID, Provider string
	// Prices are the model's, nil when unknown.
	Prices *Prices
	// Window is the model's context window; CapCompletion says whether requests carry a
	// completion cap.
	Window        int
	CapCompletion bool
}

// NewChain is the chain of links, the first in use.
func NewChain(links ...Link) *Chain {
	return &Chain{links: links, usage: make([]TokenUsage, len(links))}
}

// Stream implements Model with the current model, counting its usage.
func (c *Chain) Stream(ctx context.Context, req Request, h Handler) (Reply, error) {
	if id := ModelID(ctx); id != "" {
		if other, ok, err := c.otherModel(id); err != nil {
			return Reply{}, err
		} else if ok {
			reply, err := other.Stream(ctx, req, h)
			if err == nil {
				c.mu.Lock()
				c.othersUsed.Add(reply.Usage)
				c.mu.Unlock()
			}
			return reply, err
		}
	}
	c.mu.Lock()
	i := c.cur
	c.mu.Unlock()
	reply, err := c.links[i].Model.Stream(ctx, req, h)
	if err == nil {
		c.mu.Lock()
		c.usage[i].Add(reply.Usage)
		c.mu.Unlock()
	}
	return reply, err
}

// otherModel is the client a call asking for the model id goes to: ok is false when the
// call goes to the chain as any other (the id is the first model's, or the chain has
// moved on to another model, whose provider may not know the id).
func (c *Chain) otherModel(id string) (Model, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.Other == nil || c.cur > 0 || id == c.links[0].ID {
		return nil, false, nil
	}
	if m, ok := c.others[id]; ok {
		return m, true, nil
	}
	m, err := c.Other(id)
	if err != nil {
		return nil, false, fmt.Errorf("model %q: %w", id, err)
	}
	if c.others == nil {
		c.others = map[string]Model{}
	}
	c.others[id] = m
	return m, true, nil
}

// Next moves on to the next model of the chain and returns the one left and the one now
// in use; ok is false when none is left.
func (c *Chain) Next() (from, to Link, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur+1 >= len(c.links) {
		return Link{}, Link{}, false
	}
	c.cur++
	return c.links[c.cur-1], c.links[c.cur], true
}

// Prices are the prices of the model in use (the zero Prices when unknown).
func (c *Chain) Prices() Prices {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.links[c.cur].Prices; p != nil {
		return *p
	}
	return Prices{}
}

// Switched reports whether the chain moved off its first model.
func (c *Chain) Switched() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur > 0
}

// Cost is the cost over every model that answered, each at its own prices; nil when one of
// them answered without known prices (Other's always do).
func (c *Chain) Cost() *float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.othersUsed != (TokenUsage{}) {
		return nil
	}
	total := 0.0
	for i, l := range c.links {
		if c.usage[i] == (TokenUsage{}) {
			continue
		}
		if l.Prices == nil {
			return nil
		}
		total += l.Prices.Cost(c.usage[i])
	}
	return &total
}
