package ralph

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// reviewFlow is the structure shared by testdata/flows/review.*, without lines.
const reviewFlow = `start begin "BEGIN"
plan task "Read the task and write a plan to PLAN.md"
check decision "Do all the tests pass?"
done end "END"
fix task "Fix the first failing test"
start -> plan ""
plan -> check ""
check -> done "yes"
check -> fix "no"
fix -> check ""
`

// shape describes a flow as describe does, but without line numbers and in a stable
// node order, so that the same flow written in two languages compares equal.
func shape(f *Flow) string {
	order := []string{"start", "plan", "check", "done", "fix"}
	var nodes, edges string
	for _, id := range order {
		n, ok := f.Node(id)
		if !ok {
			nodes += "missing " + id + "\n"
			continue
		}
		nodes += n.ID + " " + n.Kind.String() + " " + quote(n.Label) + "\n"
		for _, e := range f.Outgoing(id) {
			edges += e.From + " -> " + e.To + " " + quote(e.Label) + "\n"
		}
	}
	return nodes + edges
}

func quote(s string) string { return quoteAll([]string{s})[0] }

func TestLoadFlowSameFlowInEveryFormat(t *testing.T) {
	for _, name := range []string{"review.mmd", "review.d2", "review.md"} {
		t.Run(name, func(t *testing.T) {
			f, err := LoadFlow(filepath.Join("testdata", "flows", name))
			if err != nil {
				t.Fatalf("LoadFlow: %v", err)
			}
			if got := shape(f); got != reviewFlow {
				t.Errorf("flow:\n%s\nwant:\n%s", got, reviewFlow)
			}
		})
	}
}

func TestLoadFlowMarkdownLinesCountFromTheDocument(t *testing.T) {
	f, err := LoadFlow(filepath.Join("testdata", "flows", "review.md"))
	if err != nil {
		t.Fatal(err)
	}
	n, _ := f.Node("check")
	if n.Line != 12 {
		t.Errorf("check is on line %d, want 12", n.Line)
	}
}

func TestLoadFlowBroken(t *testing.T) {
	tests := []struct {
		file    string
		want    string
		problem error
	}{
		{
			file:    "duplicate.mmd",
			want:    `testdata/broken/duplicate.mmd:4: node "check": duplicate branch label "yes"`,
			problem: ErrDuplicateBranchLabel,
		},
		{
			file:    "unreachable.d2",
			want:    `testdata/broken/unreachable.d2:3: node "END": end node cannot be reached from the begin node`,
			problem: ErrEndUnreachable,
		},
		{
			file:    "nolabel.md",
			want:    `testdata/broken/nolabel.md:6: node "check": empty branch label`,
			problem: ErrEmptyBranchLabel,
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			_, err := LoadFlow("testdata/broken/" + tt.file)
			if err == nil {
				t.Fatal("LoadFlow succeeded, want an error")
			}
			if err.Error() != tt.want {
				t.Errorf("error:\n got %s\nwant %s", err, tt.want)
			}
			checkErrorType(t, err, tt.problem)
		})
	}
}

func TestLoadFlowFileProblems(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if _, err := LoadFlow(filepath.Join(dir, "missing.mmd")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: got %v, want a not-exist error", err)
	}
	if _, err := LoadFlow(write("flow.txt", "BEGIN --> END")); !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("unknown extension: got %v, want ErrUnknownFormat", err)
	}
	md := write("none.md", "# no flow\n\n```go\nfunc main() {}\n```\n")
	if _, err := LoadFlow(md); !errors.Is(err, ErrNoFlowBlock) {
		t.Errorf("markdown without a flow: got %v, want ErrNoFlowBlock", err)
	}
	// A fence inside another block is not a fence, and an unclosed block runs to the end.
	nested := write("nested.md", "````text\n```mermaid\nnot this\n```\n````\n\n~~~ d2 {title}\nBEGIN -> END\n")
	f, err := LoadFlow(nested)
	if err != nil {
		t.Fatalf("nested fences: %v", err)
	}
	if n, _ := f.Node("END"); n.Line != 8 {
		t.Errorf("END on line %d, want 8", n.Line)
	}
}

func TestParsersAcceptCRLF(t *testing.T) {
	tests := []struct {
		name  string
		parse func(string, []byte) (*Flow, error)
		src   string
	}{
		{"mermaid", ParseMermaid, "flowchart TD\r\nBEGIN --> a[Do it] --> END\r\n"},
		{"d2", ParseD2, "BEGIN -> a -> END\r\na: |md\r\n  Do it\r\n|\r\n"},
		{"markdown", ParseMarkdown, "text\r\n```mermaid\r\nBEGIN --> a[Do it] --> END\r\n```\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := tt.parse("flow", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := f.Node("a"); n.Label != "Do it" {
				t.Errorf("label %q, want %q", n.Label, "Do it")
			}
		})
	}
}
