package ralph

import (
	"errors"
	"strings"
	"testing"
)

// checkParsed holds for every parser result: either a typed error, or a flow that
// validates and has its begin node and end node where the kinds say.
func checkParsed(t *testing.T, f *Flow, err error) {
	if err != nil {
		var pe *ParseError
		var ve *ValidationError
		if !errors.As(err, &pe) && !errors.As(err, &ve) {
			t.Fatalf("error %v is %T, want *ParseError or *ValidationError", err, err)
		}
		if err.Error() == "" {
			t.Fatal("empty error message")
		}
		return
	}
	if f == nil {
		t.Fatal("nil flow without an error")
	}
	if verr := f.Validate(); verr != nil {
		t.Fatalf("parsed flow does not validate: %v", verr)
	}
	if len(f.find(KindBegin)) != 1 || len(f.find(KindEnd)) != 1 {
		t.Fatal("parsed flow lacks a single begin or end")
	}
	for _, n := range f.Nodes() {
		if n.Kind == KindDecision {
			for _, l := range f.Labels(n.ID) {
				if l == "" {
					t.Fatalf("decision %q has an empty branch", n.ID)
				}
			}
		}
	}
}

func FuzzMermaid(f *testing.F) {
	f.Add("flowchart TD\nBEGIN --> A[work] --> END")
	f.Add("BEGIN --> c{ok?}\nc -->|yes| END\nc -- no --> c")
	f.Fuzz(func(t *testing.T, src string) {
		fl, err := ParseMermaid("fuzz.mmd", []byte(src))
		checkParsed(t, fl, err)
		// The same text inside a Markdown fence must parse the same way.
		if !strings.Contains(src, "```") {
			_, mdErr := ParseMarkdown("fuzz.md", []byte("```mermaid\n"+src+"\n```\n"))
			if (err == nil) != (mdErr == nil) {
				t.Fatalf("plain error %v, fenced error %v", err, mdErr)
			}
		}
	})
}

func FuzzD2(f *testing.F) {
	f.Add("BEGIN -> a -> END: done\na: |md\n  work\n|")
	f.Add("BEGIN -> c\nc -> END: yes\nc -> c: no {style.stroke: red}")
	f.Fuzz(func(t *testing.T, src string) {
		fl, err := ParseD2("fuzz.d2", []byte(src))
		checkParsed(t, fl, err)
	})
}

func FuzzChoice(f *testing.F) {
	f.Add("<choice>STOP</choice>")
	f.Add("<choice>a</choice><choice> b </choice>")
	f.Fuzz(func(t *testing.T, text string) {
		got, found := ParseChoice(text)
		if !found {
			if got != "" {
				t.Fatalf("no tag found but got %q", got)
			}
			if strings.Contains(text, "<choice>"+got+"</choice>") {
				t.Fatal("missed an empty tag")
			}
			return
		}
		if got != strings.TrimSpace(got) || strings.Contains(got, "<") {
			t.Fatalf("choice %q is untrimmed or holds markup", got)
		}
		if !strings.Contains(text, got+"</choice>") && !strings.Contains(text, "</choice>") {
			t.Fatalf("choice %q not in a closed tag", got)
		}
		// Appending a later tag must win.
		if later, _ := ParseChoice(text + "<choice>ZZ</choice>"); later != "ZZ" {
			t.Fatalf("a later tag did not win: %q", later)
		}
	})
}
