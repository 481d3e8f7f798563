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
	// Only reachable decisions are held to it: a stray node the run never reaches is not
	// validated, as Kimi CLI does (validate_flow), so it may have unlabelled edges.
	reach := f.reachable(f.begin())
	for _, n := range f.Nodes() {
		if n.Kind == KindDecision && reach[n.ID] {
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

// lastChoiceTag finds the last <choice>…</choice> tag without a regexp, as the reference
// ParseChoice is checked against: a tag's content runs from its opening to the next '<',
// which must begin the closing tag.
func lastChoiceTag(text string) (content string, found bool) {
	const open, closing = "<choice>", "</choice>"
	for i := 0; ; {
		j := strings.Index(text[i:], open)
		if j < 0 {
			return content, found
		}
		start := i + j + len(open)
		end := strings.IndexByte(text[start:], '<')
		if end >= 0 && strings.HasPrefix(text[start+end:], closing) {
			content, found = text[start:start+end], true
			i = start + end + len(closing)
			continue
		}
		i = start
	}
}

func FuzzChoice(f *testing.F) {
	f.Add("<choice>STOP</choice>")
	f.Add("<choice>a</choice><choice> b </choice>")
	f.Add("<choice><choice>x</choice>")
	f.Add("<choice>a<b></choice><choice>c</choice")
	f.Fuzz(func(t *testing.T, text string) {
		got, found := ParseChoice(text)
		want, wantFound := lastChoiceTag(text)
		if found != wantFound || got != strings.TrimSpace(want) {
			t.Fatalf("ParseChoice(%q) = %q, %v; the last tag holds %q (found %v)", text, got, found, want, wantFound)
		}
		if !found {
			if got != "" {
				t.Fatalf("no tag found but got %q", got)
			}
			return
		}
		if got != strings.TrimSpace(got) || strings.Contains(got, "<") {
			t.Fatalf("choice %q is untrimmed or holds markup", got)
		}
		// Appending a later tag must win.
		if later, _ := ParseChoice(text + "<choice>ZZ</choice>"); later != "ZZ" {
			t.Fatalf("a later tag did not win: %q", later)
		}
	})
}
