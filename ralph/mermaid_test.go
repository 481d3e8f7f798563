package ralph

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// describe lists a flow's nodes and edges with their lines, one per line, for comparison.
func describe(f *Flow) string {
	var b strings.Builder
	for _, n := range f.Nodes() {
		fmt.Fprintf(&b, "%s %s %q @%d\n", n.ID, n.Kind, n.Label, n.Line)
	}
	for _, n := range f.Nodes() {
		for _, e := range f.Outgoing(n.ID) {
			fmt.Fprintf(&b, "%s -> %s %q @%d\n", e.From, e.To, e.Label, e.Line)
		}
	}
	return b.String()
}

// lines joins test expectations.
func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

func TestParseMermaid(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string
	}{
		{
			name: "shapes and plain arrows",
			src: lines(
				"flowchart TD",
				"  BEGIN([BEGIN]) --> A[Write the tests]",
				"  A --> END((end))",
			),
			want: lines(
				`BEGIN begin "BEGIN" @2`,
				`A task "Write the tests" @2`,
				`END end "end" @3`,
				`BEGIN -> A "" @2`,
				`A -> END "" @3`,
			),
		},
		{
			name: "decision with both label forms, comments, styling and escapes",
			src: lines(
				"graph LR",
				"%% a comment",
				"b((Begin)):::start --> check{Do tests pass?}",
				"check -->|yes| e(END)",
				`check -- no --> fix["Fix \"them\"\nnow"] --> check`,
				"classDef start fill:#f9f",
				"class check start",
				"style check fill:#bbf",
				"linkStyle 0 stroke:#f00",
				"click check callback",
			),
			want: lines(
				`b begin "Begin" @3`,
				`check decision "Do tests pass?" @3`,
				`e end "END" @4`,
				`fix task "Fix \"them\"\nnow" @5`,
				`b -> check "" @3`,
				`check -> e "yes" @4`,
				`check -> fix "no" @5`,
				`fix -> check "" @5`,
			),
		},
		{
			name: "ids as labels, other arrows, subgraph, semicolons, front matter",
			src: lines(
				"---",
				"title: demo",
				"---",
				"%%{init: {'theme': 'dark'}}%%",
				"flowchart TB",
				"  subgraph work [Work]",
				"    direction LR",
				"    BEGIN -.-> a; a ==> b",
				"  end",
				"  b --- c",
				"  c -. maybe .-> d",
				"  d == sure ==> END",
			),
			want: lines(
				`BEGIN begin "BEGIN" @8`,
				`a task "a" @8`,
				`b task "b" @8`,
				`c task "c" @10`,
				`d task "d" @11`,
				`END end "END" @12`,
				`BEGIN -> a "" @8`,
				`a -> b "" @8`,
				`b -> c "" @10`,
				`c -> d "maybe" @11`,
				`d -> END "sure" @12`,
			),
		},
		{
			name: "later label wins, quoted edge label, long arrows, no header",
			src: lines(
				"BEGIN ---> ask",
				`ask{"Ship it?"} ---->|"go on"| ask2`,
				"ask -- stop --- END",
				"ask2[Check again] --> END",
				"ask[Ship it now?]",
			),
			want: lines(
				`BEGIN begin "BEGIN" @1`,
				`ask decision "Ship it now?" @5`,
				`ask2 task "Check again" @4`,
				`END end "END" @3`,
				`BEGIN -> ask "" @1`,
				`ask -> ask2 "go on" @2`,
				`ask -> END "stop" @3`,
				`ask2 -> END "" @4`,
			),
		},
		{
			name: "other shapes",
			src: lines(
				"s[[BEGIN]] --> a(((one))) --> b[(two)] --> c{{three}} --> d>four] --> e([END])",
			),
			want: lines(
				`s begin "BEGIN" @1`,
				`a task "one" @1`,
				`b task "two" @1`,
				`c task "three" @1`,
				`d task "four" @1`,
				`e end "END" @1`,
				`s -> a "" @1`,
				`a -> b "" @1`,
				`b -> c "" @1`,
				`c -> d "" @1`,
				`d -> e "" @1`,
			),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := ParseMermaid("flow.mmd", []byte(tt.src))
			if err != nil {
				t.Fatalf("ParseMermaid: %v", err)
			}
			if got := describe(f); got != tt.want {
				t.Errorf("flow:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestParseMermaidErrors(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		want    string
		problem error // nil for syntax errors
	}{
		{
			name: "unterminated label",
			src:  lines("flowchart TD", "BEGIN --> A[Write tests"),
			want: `flow.mmd:2: node "A": unterminated label: missing "]"`,
		},
		{
			name: "unterminated quoted label",
			src:  lines(`BEGIN --> A["Write tests]`),
			want: `flow.mmd:1: node "A": unterminated quoted label`,
		},
		{
			name: "text after quoted label",
			src:  lines(`BEGIN --> A["Write" tests]`),
			want: `flow.mmd:1: node "A": expected "]" after the quoted label`,
		},
		{
			name: "single-dash arrow",
			src:  lines("flowchart TD", "", "BEGIN -> A"),
			want: `flow.mmd:3: node "BEGIN": expected an arrow such as --> after the node, found "-> A"`,
		},
		{
			name: "ampersand is not supported",
			src:  lines("BEGIN --> A & B"),
			want: `flow.mmd:1: node "A": expected an arrow such as --> after the node, found "& B"`,
		},
		{
			name: "unterminated pipe label",
			src:  lines("BEGIN -->|go B"),
			want: `flow.mmd:1: node "BEGIN": unterminated edge label: missing closing |`,
		},
		{
			name: "unterminated text label",
			src:  lines("BEGIN -- go B"),
			want: `flow.mmd:1: node "BEGIN": unterminated edge label after "--": missing the closing arrow`,
		},
		{
			name: "arrow without target",
			src:  lines("BEGIN -->"),
			want: `flow.mmd:1: expected a node id (letters, digits, _), found ""`,
		},
		{
			name: "arrow without source",
			src:  lines("--> END"),
			want: `flow.mmd:1: expected a node id (letters, digits, _), found "--> END"`,
		},
		{
			name:    "no begin",
			src:     lines("A --> END"),
			want:    `flow.mmd: no begin node (label a node BEGIN)`,
			problem: ErrNoBegin,
		},
		{
			name:    "no end",
			src:     lines("BEGIN --> A"),
			want:    `flow.mmd: no end node (label a node END)`,
			problem: ErrNoEnd,
		},
		{
			name:    "two begins",
			src:     lines("BEGIN --> END", "b2[begin] --> END"),
			want:    `flow.mmd:2: node "b2": second begin node`,
			problem: ErrMultipleBegin,
		},
		{
			name:    "two ends",
			src:     lines("BEGIN --> END", "BEGIN2[x] --> e2[End]"),
			want:    `flow.mmd:2: node "e2": second end node`,
			problem: ErrMultipleEnd,
		},
		{
			name: "duplicate branch label",
			src: lines(
				"flowchart TD",
				"BEGIN --> check{Ready?}",
				"check -->|yes| END",
				"%% the same label again",
				"",
				"",
				"check -->|yes| fix[Fix it] --> check",
			),
			want:    `flow.mmd:7: node "check": duplicate branch label "yes"`,
			problem: ErrDuplicateBranchLabel,
		},
		{
			name:    "empty branch label",
			src:     lines("BEGIN --> check{Ready?}", "check -->|yes| END", "check --> fix", "fix --> check"),
			want:    `flow.mmd:3: node "check": empty branch label`,
			problem: ErrEmptyBranchLabel,
		},
		{
			name:    "dead end",
			src:     lines("BEGIN --> check{Ready?}", "check -->|yes| END", "check -->|no| fix[Fix it]"),
			want:    `flow.mmd:3: node "fix": node has no outgoing edge`,
			problem: ErrDeadEnd,
		},
		{
			name:    "end unreachable",
			src:     lines("BEGIN --> a", "a --> a", "e[END]"),
			want:    `flow.mmd:3: node "e": end node cannot be reached from the begin node`,
			problem: ErrEndUnreachable,
		},
		{
			name:    "edge out of end",
			src:     lines("BEGIN --> END", "END --> a", "a --> END"),
			want:    `flow.mmd:2: node "END": end node must not have outgoing edges`,
			problem: ErrEndEdges,
		},
		{
			name:    "begin branches",
			src:     lines("BEGIN --> a", "BEGIN --> END", "a --> END"),
			want:    `flow.mmd:1: node "BEGIN": begin node needs exactly one outgoing edge`,
			problem: ErrBeginEdges,
		},
		{
			name:    "empty label",
			src:     lines(`BEGIN --> a[""] --> END`),
			want:    `flow.mmd:1: node "a": node has an empty label`,
			problem: ErrEmptyLabel,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseMermaid("flow.mmd", []byte(tt.src))
			if err == nil {
				t.Fatal("ParseMermaid succeeded, want an error")
			}
			if err.Error() != tt.want {
				t.Errorf("error:\n got %s\nwant %s", err, tt.want)
			}
			checkErrorType(t, err, tt.problem)
		})
	}
}

// checkErrorType asserts err is a *ValidationError wrapping problem, or a *ParseError
// when problem is nil.
func checkErrorType(t *testing.T, err, problem error) {
	t.Helper()
	if problem == nil {
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("error %v is %T, want *ParseError", err, err)
		}
		return
	}
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Errorf("error %v is %T, want *ValidationError", err, err)
	}
	if !errors.Is(err, problem) {
		t.Errorf("error %v does not wrap %v", err, problem)
	}
}
