package ralph

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The problems Validate reports, wrapped in a *ValidationError; test for them with errors.Is.
var (
	ErrNoBegin              = errors.New("no begin node (label a node BEGIN)")
	ErrMultipleBegin        = errors.New("second begin node")
	ErrNoEnd                = errors.New("no end node (label a node END)")
	ErrMultipleEnd          = errors.New("second end node")
	ErrEndUnreachable       = errors.New("end node cannot be reached from the begin node")
	ErrUnknownNode          = errors.New("edge to an undefined node")
	ErrBeginEdges           = errors.New("begin node needs exactly one outgoing edge")
	ErrEndEdges             = errors.New("end node must not have outgoing edges")
	ErrDeadEnd              = errors.New("node has no outgoing edge")
	ErrTaskBranches         = errors.New("task node has more than one outgoing edge")
	ErrEmptyLabel           = errors.New("node has an empty label")
	ErrEmptyBranchLabel     = errors.New("empty branch label")
	ErrDuplicateBranchLabel = errors.New("duplicate branch label")
)

// position formats "file:line", leaving out what is unknown.
func position(file string, line int) string {
	if file == "" {
		file = "flow"
	}
	if line <= 0 {
		return file
	}
	return file + ":" + strconv.Itoa(line)
}

// ParseError is a syntax error in a flowchart source.
type ParseError struct {
	File string
	Line int
	// Node is the node being read when the error happened, if any.
	Node string
	Msg  string
}

// Error formats the error as `file:line: node "id": message`.
func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString(position(e.File, e.Line))
	b.WriteString(": ")
	if e.Node != "" {
		fmt.Fprintf(&b, "node %q: ", e.Node)
	}
	b.WriteString(e.Msg)
	return b.String()
}

// ValidationError is a flow that parsed but cannot run. Err wraps one of the Err* problems
// above, so errors.Is(err, ErrDuplicateBranchLabel) works through it.
type ValidationError struct {
	File string
	Line int
	Node string
	Err  error
}

// Error formats the error as `file:line: node "id": problem`.
func (e *ValidationError) Error() string {
	if e.Node == "" {
		return position(e.File, e.Line) + ": " + e.Err.Error()
	}
	return fmt.Sprintf("%s: node %q: %v", position(e.File, e.Line), e.Node, e.Err)
}

// Unwrap returns the problem.
func (e *ValidationError) Unwrap() error { return e.Err }

// ChoiceError means a decision node got no valid <choice> after every re-ask.
type ChoiceError struct {
	Node      string
	Iteration int
	// Attempts is the number of turns the node ran (the first ask plus the re-asks).
	Attempts int
	// Found says whether the last reply held a <choice> tag at all; Last is its content.
	Found  bool
	Last   string
	Labels []string
	// Ralph: the node is an iteration of a Ralph loop, whose node ids are internal.
	Ralph bool
}

// Error says which node failed, what it got and what it wanted.
func (e *ChoiceError) Error() string {
	got := "no <choice> tag"
	if e.Found {
		got = fmt.Sprintf("last choice %q", e.Last)
	}
	where := fmt.Sprintf("node %q", e.Node)
	if e.Ralph {
		where = fmt.Sprintf("Ralph iteration %d", e.Iteration)
	}
	return fmt.Sprintf("%s: no valid choice after %d replies (%s); want one of %s",
		where, e.Attempts, got, strings.Join(quoteAll(e.Labels), ", "))
}

// NodeError is a failure while a flow ran one of its nodes. It names the place in the
// user's words: a flow's node id, or a Ralph loop's iteration (its node ids are internal).
type NodeError struct {
	Node string
	// Iteration is the node execution that failed; 0 before it started.
	Iteration int
	Ralph     bool
	Err       error
}

func (e *NodeError) Error() string {
	switch {
	case e.Ralph:
		return fmt.Sprintf("Ralph iteration %d: %v", e.Iteration, e.Err)
	case e.Iteration > 0:
		return fmt.Sprintf("flow node %q (iteration %d): %v", e.Node, e.Iteration, e.Err)
	}
	return fmt.Sprintf("flow node %q: %v", e.Node, e.Err)
}

// Unwrap returns the cause.
func (e *NodeError) Unwrap() error { return e.Err }

func quoteAll(ss []string) []string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return q
}
