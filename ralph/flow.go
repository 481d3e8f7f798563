package ralph

import (
	"fmt"
	"strings"
)

// Kind is the role a node plays in a flow.
type Kind int

// The node kinds. A task node runs one agent turn and follows its only edge; a decision node
// runs one turn and follows the edge whose label the model chose.
const (
	KindTask Kind = iota
	KindDecision
	KindBegin
	KindEnd
)

// String returns the lower-case name of k.
func (k Kind) String() string {
	switch k {
	case KindTask:
		return "task"
	case KindDecision:
		return "decision"
	case KindBegin:
		return "begin"
	case KindEnd:
		return "end"
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Node is one step of a flow. Label is the prompt of a task or decision node.
type Node struct {
	ID    string
	Label string
	Kind  Kind
	// Line is the source line that defined the node (0 when built in code).
	Line int
}

// Edge leads from one node to another. Label names the branch of a decision node.
type Edge struct {
	From  string
	To    string
	Label string
	Line  int
}

// Flow is a directed graph of nodes with labelled edges, in the order they were added.
// Build one with NewFlow, AddNode and AddEdge, or parse one with ParseMermaid, ParseD2,
// ParseMarkdown or LoadFlow; Validate checks it before it runs.
type Flow struct {
	// Name is the source the flow came from, used as the file part of error positions.
	Name  string
	nodes map[string]*Node
	order []string
	out   map[string][]Edge
	edges []Edge
}

// NewFlow returns an empty flow named name.
func NewFlow(name string) *Flow {
	return &Flow{Name: name, nodes: map[string]*Node{}, out: map[string][]Edge{}}
}

// AddNode adds n, or replaces the node with the same ID while keeping its position.
func (f *Flow) AddNode(n Node) {
	if old, ok := f.nodes[n.ID]; ok {
		*old = n
		return
	}
	f.nodes[n.ID] = &n
	f.order = append(f.order, n.ID)
}

// AddEdge adds e. Its endpoints must exist by the time Validate runs.
func (f *Flow) AddEdge(e Edge) {
	f.out[e.From] = append(f.out[e.From], e)
	f.edges = append(f.edges, e)
}

// Node returns the node with the given id.
func (f *Flow) Node(id string) (Node, bool) {
	n, ok := f.nodes[id]
	if !ok {
		return Node{}, false
	}
	return *n, true
}

// Nodes returns the nodes in the order they were first added.
func (f *Flow) Nodes() []Node {
	ns := make([]Node, 0, len(f.order))
	for _, id := range f.order {
		ns = append(ns, *f.nodes[id])
	}
	return ns
}

// Outgoing returns the edges leaving the node id, in source order.
func (f *Flow) Outgoing(id string) []Edge {
	return append([]Edge(nil), f.out[id]...)
}

// Labels returns the branch labels of the node id, in source order.
func (f *Flow) Labels(id string) []string {
	var ls []string
	for _, e := range f.out[id] {
		ls = append(ls, e.Label)
	}
	return ls
}

// ensure returns the node id, creating a task node labelled with its id on first mention.
// Parsers use it so that a node may be referenced before (or without) its definition.
func (f *Flow) ensure(id string, line int) *Node {
	if n, ok := f.nodes[id]; ok {
		return n
	}
	f.AddNode(Node{ID: id, Label: id, Kind: KindTask, Line: line})
	return f.nodes[id]
}

// setLabel gives the node id an explicit label; the last definition wins, as in Mermaid.
func (f *Flow) setLabel(id, label string, line int) {
	n := f.ensure(id, line)
	n.Label = label
	n.Line = line
}

// classify assigns kinds the way flowchart files express them: a node labelled BEGIN or END
// (any case) is the begin or end node, and any other node with more than one outgoing
// edge is a decision.
func (f *Flow) classify() {
	for _, id := range f.order {
		n := f.nodes[id]
		switch strings.ToLower(strings.TrimSpace(n.Label)) {
		case "begin":
			n.Kind = KindBegin
		case "end":
			n.Kind = KindEnd
		default:
			if len(f.out[id]) > 1 {
				n.Kind = KindDecision
			} else {
				n.Kind = KindTask
			}
		}
	}
}

// find returns the ids of the nodes of kind k, in order.
func (f *Flow) find(k Kind) []string {
	var ids []string
	for _, id := range f.order {
		if f.nodes[id].Kind == k {
			ids = append(ids, id)
		}
	}
	return ids
}

// begin returns the id of the begin node of a validated flow.
func (f *Flow) begin() string { return f.find(KindBegin)[0] }
