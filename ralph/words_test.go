package ralph

import (
	"strings"
	"testing"
)

// TestPromptsAreOurOwnWords holds README "What differs": the decision prompt, the Ralph
// loop's note and the re-ask follow Kimi CLI's protocol in kimi-run's own words. Kimi's
// sentences (kimisoul.py, v1.49: ralph_loop, _build_flow_prompt and the flow re-ask) are
// quoted here only as what must not appear.
func TestPromptsAreOurOwnWords(t *testing.T) {
	kimi := []string{
		"Available branches:",
		"Reply with a choice using",
		"You are running in an automated loop where the same prompt is fed repeatedly",
		"Only choose STOP when the task is fully complete",
		"If you are not 100% sure",
		"Your last response did not include a valid choice",
		"Reply with one of the choices using",
	}
	prompt := decisionPrompt("Is it done? "+loopNote, []string{"CONTINUE", "STOP"}) + reaskNote
	for _, k := range kimi {
		if strings.Contains(prompt, k) {
			t.Errorf("a prompt uses Kimi's words %q:\n%s", k, prompt)
		}
	}
	// The protocol is Kimi's: each branch on a line of its own, the answer in the tag.
	for _, part := range []string{"\n- CONTINUE\n- STOP\n", "<choice>...</choice>", "STOP", "CONTINUE"} {
		if !strings.Contains(prompt, part) {
			t.Errorf("the prompt lacks %q:\n%s", part, prompt)
		}
	}
}
