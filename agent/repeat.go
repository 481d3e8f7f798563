package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
)

// Loop-guard thresholds: how many consecutive steps may make the same call before the model
// is reminded, warned, told it is stuck, and finally stopped.
const (
	repeatRemind = 3
	repeatWarn   = 5
	repeatStuck  = 8
	repeatStop   = 12
)

// repeatGuard tracks identical tool calls across the steps of one turn. A call is identical
// when its name and its canonical arguments are equal. Running the same tests between edits
// is fine; only a call repeated in consecutive steps counts.
type repeatGuard struct {
	mu      sync.Mutex
	prev    map[string]int // streaks as of the previous step
	current map[string]int // streaks of the calls of this step
}

// callKey is a tool call's identity for the guard: name plus canonical JSON arguments.
func callKey(name string, args []byte) string {
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return name + "\x00" + string(args)
	}
	// encoding/json writes map keys sorted, which makes the text canonical.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return name + "\x00" + b.String()
}

// observe records a call of this step and returns its streak: how many consecutive steps,
// this one included, made it.
func (g *repeatGuard) observe(key string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.current == nil {
		g.current = map[string]int{}
	}
	if n, ok := g.current[key]; ok {
		return n
	}
	n := g.prev[key] + 1
	g.current[key] = n
	return n
}

// nextStep closes a step; it reports whether some call reached the hard limit.
func (g *repeatGuard) nextStep() (stop bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, n := range g.current {
		if n >= repeatStop {
			stop = true
		}
	}
	g.prev, g.current = g.current, nil
	return stop
}

// reminder is the note appended to the result of a call made streak steps in a row.
func reminder(name string, streak int) string {
	switch {
	case streak >= repeatStop:
		return fmt.Sprintf("\n\n<system>You made this exact %s call in %d consecutive steps. The turn is being stopped because it is not making progress.</system>", name, streak)
	case streak >= repeatStuck:
		return fmt.Sprintf("\n\n<system>You are stuck: this exact %s call ran in %d consecutive steps with the same result. Stop calling it. Change your approach, or give your final answer now.</system>", name, streak)
	case streak >= repeatWarn:
		return fmt.Sprintf("\n\n<system>This is the same %s call with the same arguments for the %d. step in a row. Repeating it will not change the result; try something different.</system>", name, streak)
	case streak >= repeatRemind:
		return fmt.Sprintf("\n\n<system>Note: you already made this exact %s call in the previous steps.</system>", name)
	}
	return ""
}
