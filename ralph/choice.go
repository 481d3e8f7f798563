package ralph

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// choiceTag matches one <choice>…</choice> tag. The content may not contain '<', so a tag
// with markup inside does not count and an unclosed tag cannot swallow a later one.
// It is compiled on first use: most runs have no flow and never need it.
var choiceTag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<choice>([^<]*)</choice>`) })

// ParseChoice returns the content of the last <choice>…</choice> tag in text, trimmed of
// surrounding whitespace, and whether there was one. The last tag wins because models
// often discuss the options before they commit to one. Tags are case-sensitive.
func ParseChoice(text string) (string, bool) {
	m := choiceTag().FindAllStringSubmatch(text, -1)
	if len(m) == 0 {
		return "", false
	}
	return strings.TrimSpace(m[len(m)-1][1]), true
}

// StripChoice removes every <choice>…</choice> tag (as ParseChoice reads them) from text
// and trims the result: the tags are for the flow runner, not for the reader of the final
// answer.
func StripChoice(text string) string {
	return strings.TrimSpace(choiceTag().ReplaceAllString(text, ""))
}

// decisionPrompt is what a decision node asks: its label, the branches, and how to answer.
func decisionPrompt(label string, branches []string) string {
	var b strings.Builder
	b.WriteString(label)
	b.WriteString("\n\nBranches you can take from here:\n")
	for _, l := range branches {
		b.WriteString("- ")
		b.WriteString(l)
		b.WriteByte('\n')
	}
	b.WriteString("\nWhen you have decided, end your reply with <choice>LABEL</choice>, " +
		"where LABEL is one of the branches above, written exactly as shown.")
	return b.String()
}

// reaskNote is added to a decision prompt after a reply without a valid choice.
func reaskNote(last string, found bool) string {
	if !found {
		return "\n\nNote: your previous reply had no <choice> tag, so no branch was taken. " +
			"Answer again and include one."
	}
	return fmt.Sprintf("\n\nNote: your previous reply chose %q, which is not one of the branches. "+
		"Answer again with one of the labels above, written exactly as shown.", last)
}
