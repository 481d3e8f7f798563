package output

import "strings"

// saidWidth bounds the line that shows what the model said between tool calls, in runes.
const saidWidth = 160

// saidKeep bounds what is kept of a reply's text: only its start is shown.
const saidKeep = 2048

// reply is the text of one model reply as it streams.
type reply struct {
	step int
	text strings.Builder
}

// hear adds a text delta of step to the reply streaming under parent. A delta of another
// step starts a new reply; a retried step starts again after its retry event.
func (s *Text) hear(parent string, step int, delta string) {
	r := s.said[parent]
	if r == nil || r.step != step {
		r = &reply{step: step}
		s.said[parent] = r
	}
	if r.text.Len() < saidKeep {
		r.text.WriteString(delta)
	}
}

// spoken takes the reply held for parent: its text as one shortened line, "" when there
// is none or it is blank. A CI log then shows what the model says between tool calls and
// between Ralph iterations, not only the commands it runs.
func (s *Text) spoken(parent string) string {
	r := s.said[parent]
	delete(s.said, parent)
	if r == nil {
		return ""
	}
	return oneLine(r.text.String(), saidWidth)
}
