package ralph

import (
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
// It follows Kimi CLI's protocol (KimiSoul._build_flow_prompt: the label, one line per
// branch, the answer in a <choice> tag) in kimi-run's own words.
func decisionPrompt(label string, branches []string) string {
	var b strings.Builder
	b.WriteString(label)
	b.WriteString("\n\nThe branches you may take:\n")
	for _, l := range branches {
		b.WriteString("- ")
		b.WriteString(l)
		b.WriteByte('\n')
	}
	b.WriteString("\nGive the one you take inside <choice>...</choice>.")
	return b.String()
}

// reaskNote is added to a decision prompt after a reply without a valid choice. It says
// what Kimi CLI's re-ask says (no valid choice; answer with one in the tag), in our own
// words. Unlike Kimi, which asks again without end, the runner asks at most MaxReasks
// times: an unattended run must not loop forever on a model that never chooses.
const reaskNote = "\n\nYour previous reply had no valid choice. " +
	"Answer with one of the branches above inside <choice>...</choice>."
