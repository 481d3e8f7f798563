package tools

import (
	"context"
)

const askUserDescription = `Ask the user questions with a few options each. In this run nobody is there to
answer: the call returns at once with no answers, and you decide yourself. State the choice
you made and why in your final answer, so that whoever reads it can change it.`

// askUserArgs are AskUserQuestion's arguments, Kimi CLI's parameters.
type askUserArgs struct {
	Questions []askQuestion `json:"questions" minItems:"1" maxItems:"4" description:"the questions, 1 to 4"`
}

// askQuestion is one question; an unnamed struct keeps the schema inline.
type askQuestion = struct {
	Question    string      `json:"question" description:"the question"`
	Header      string      `json:"header,omitempty" default:"\"\"" description:"a short label for it"`
	Options     []askOption `json:"options" minItems:"2" maxItems:"4" description:"2 to 4 answers to choose from"`
	MultiSelect bool        `json:"multi_select,omitempty" default:"false" description:"whether several options may be chosen"`
}

type askOption = struct {
	Label       string `json:"label" description:"the option, in a few words"`
	Description string `json:"description,omitempty" default:"\"\"" description:"what choosing it means"`
}

// askUserDismissed is AskUserQuestion's answer: kimi-run runs unattended, so the questions
// are dismissed unanswered, as Kimi CLI's print mode (afk) does.
const askUserDismissed = `{"answers": {}, "note": "Nobody is present to answer in this unattended run. Decide for yourself and say what you decided."}`

// NewAskUserQuestion returns the AskUserQuestion tool, which answers every call as
// dismissed: nobody is there. Subagents do not get it, as in Kimi CLI (its coder, explore
// and plan agents leave it out).
func NewAskUserQuestion(Env) Tool {
	return New("AskUserQuestion", askUserDescription, Facts{ReadOnly: true, RootOnly: true}, func(_ context.Context, in askUserArgs) (Result, error) {
		if n := len(in.Questions); n < 1 || n > 4 {
			return Errorf("questions holds %d questions; ask 1 to 4", n), nil
		}
		for i, q := range in.Questions {
			if n := len(q.Options); n < 2 || n > 4 {
				return Errorf("question %d has %d options; give 2 to 4", i+1, n), nil
			}
		}
		return Text(askUserDismissed), nil
	})
}
