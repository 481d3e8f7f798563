package run

import (
	"fmt"
	"strings"

	"github.com/kimi-run/kimi-run/event"
)

// errDenialsShown bounds the refusals the --fail-on-denial error names; result.denials has
// them all.
const errDenialsShown = 3

// failOnDenial turns a run that would exit 0 into exit 9 (`denied`) when --fail-on-denial is
// set and a tool call was refused: a CI job that asked for it wants to hear that the agent
// could not do something rather than a success. Every other outcome keeps its code: a
// failure already says more.
func (r *runState) failOnDenial(v verdict, denials []event.Denial) verdict {
	if v.code != ExitOK || !r.s.Flags.FailOnDenial || len(denials) == 0 {
		return v
	}
	var names []string
	for i, d := range denials {
		if i == errDenialsShown {
			names = append(names, fmt.Sprintf("and %d more", len(denials)-i))
			break
		}
		rule := d.Rule
		if rule == "" {
			rule = "no allow rule"
		}
		names = append(names, fmt.Sprintf("%s by %s (%s)", d.Name, rule, d.Source))
	}
	calls := "a tool call was"
	if len(denials) > 1 {
		calls = fmt.Sprintf("%d tool calls were", len(denials))
	}
	return verdict{code: ExitDenied, reason: "denied", err: &event.ErrorInfo{Kind: "denied",
		Message: fmt.Sprintf("%s refused (--fail-on-denial): %s; result.denials lists them", calls, strings.Join(names, ", "))}}
}
