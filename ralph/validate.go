package ralph

import (
	"fmt"
	"strings"
)

// Validate checks that f can run: every edge joins defined nodes; there is exactly one begin
// and one end node; the begin node has one outgoing edge and the end node none; every task
// and decision node reachable from the begin node has a non-empty label and somewhere to go; a task node has one outgoing
// edge; a decision node's branch labels are non-empty and unique; and the end node can be
// reached from the begin node. The first problem found is returned as a *ValidationError.
func (f *Flow) Validate() error {
	for _, e := range f.edges {
		for _, id := range []string{e.From, e.To} {
			if _, ok := f.nodes[id]; !ok {
				return f.invalid(e.Line, id, ErrUnknownNode)
			}
		}
	}
	if err := f.checkUnique(KindBegin, ErrNoBegin, ErrMultipleBegin); err != nil {
		return err
	}
	if err := f.checkUnique(KindEnd, ErrNoEnd, ErrMultipleEnd); err != nil {
		return err
	}
	// Only nodes the run can reach are checked, as Kimi CLI does (validate_flow): a stray
	// node a diagram declares but never links, such as `not_used` in Kimi's own example
	// (tests/core/test_agent_flow.py, d2_flowchart_typical_example), cannot stop a run.
	reach := f.reachable(f.begin())
	for _, id := range f.order {
		if !reach[id] {
			continue
		}
		if err := f.checkNode(f.nodes[id]); err != nil {
			return err
		}
	}
	end := f.nodes[f.find(KindEnd)[0]]
	if !reach[end.ID] {
		return f.invalid(end.Line, end.ID, ErrEndUnreachable)
	}
	return nil
}

// invalid builds a *ValidationError at line about node id.
func (f *Flow) invalid(line int, id string, err error) error {
	return &ValidationError{File: f.Name, Line: line, Node: id, Err: err}
}

// checkUnique requires exactly one node of kind k.
func (f *Flow) checkUnique(k Kind, none, many error) error {
	ids := f.find(k)
	switch {
	case len(ids) == 0:
		return &ValidationError{File: f.Name, Err: none}
	case len(ids) > 1:
		n := f.nodes[ids[1]]
		return f.invalid(n.Line, n.ID, many)
	}
	return nil
}

// checkNode applies the per-node rules.
func (f *Flow) checkNode(n *Node) error {
	out := f.out[n.ID]
	line := n.Line
	switch n.Kind {
	case KindBegin:
		if len(out) != 1 {
			return f.invalid(line, n.ID, ErrBeginEdges)
		}
	case KindEnd:
		if len(out) > 0 {
			return f.invalid(out[0].Line, n.ID, ErrEndEdges)
		}
	case KindTask, KindDecision:
		if strings.TrimSpace(n.Label) == "" {
			return f.invalid(line, n.ID, ErrEmptyLabel)
		}
		if len(out) == 0 {
			return f.invalid(line, n.ID, ErrDeadEnd)
		}
		if n.Kind == KindTask && len(out) > 1 {
			return f.invalid(out[1].Line, n.ID, ErrTaskBranches)
		}
		if n.Kind == KindDecision {
			return f.checkBranches(n.ID, out)
		}
	}
	return nil
}

// checkBranches requires non-empty, unique labels on a decision node's edges. Labels are
// compared exactly, as choices are.
func (f *Flow) checkBranches(id string, out []Edge) error {
	seen := map[string]bool{}
	for _, e := range out {
		if strings.TrimSpace(e.Label) == "" {
			return f.invalid(e.Line, id, ErrEmptyBranchLabel)
		}
		if seen[e.Label] {
			return f.invalid(e.Line, id, fmt.Errorf("%w %q", ErrDuplicateBranchLabel, e.Label))
		}
		seen[e.Label] = true
	}
	return nil
}

// reachable returns the set of nodes reachable from start, start included.
func (f *Flow) reachable(start string) map[string]bool {
	seen := map[string]bool{start: true}
	stack := []string{start}
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, e := range f.out[id] {
			if !seen[e.To] {
				seen[e.To] = true
				stack = append(stack, e.To)
			}
		}
	}
	return seen
}
