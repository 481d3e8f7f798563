package run

import (
	"context"
	"github.com/kimi-run/kimi-run/agentspec"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// looksLikePath matches a value meant as a file name rather than text: one word with a
// directory separator or a short extension (review.md, ./prompts/ci).
var looksLikePath = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[^\s]*([/\\][^\s]*|\.[A-Za-z0-9]{1,8})$`)
})

// textOrFile reads a TEXT|FILE flag value: the content of the file it names when there is
// one, else the text itself. A value that looks like a file name but names none is a usage
// error, so a typo in a path is not sent to the model as its instructions.
func textOrFile(ctx context.Context, flag, v string) (string, error) {
	if strings.TrimSpace(v) == "" {
		return "", usagef("%s is empty", flag)
	}
	if fi, err := os.Stat(v); err == nil && !fi.IsDir() {
		text, err := readFileCapped(ctx, v)
		if err != nil {
			return "", usagef("%s: %w", flag, err)
		}
		if strings.TrimSpace(text) == "" {
			return "", usagef("%s: the file %s is empty", flag, v)
		}
		return text, nil
	}
	if looksLikePath().MatchString(v) {
		return "", usagef("%s %s: no such file (give the text itself with a space in it, or a file that exists)", flag, filepath.Clean(v))
	}
	return v, nil
}

// applySystemPrompt puts --system-prompt in place of the agent's system prompt (the
// built-in one or an agent file's) and adds --append-system-prompt after it, as Claude
// Code's flags do. The text is used as given, not as a template. Subagents keep theirs.
func applySystemPrompt(ctx context.Context, cli *CLI, a *agentspec.Setup) error {
	if cli.Given("system-prompt") {
		text, err := textOrFile(ctx, "--system-prompt", cli.SystemPrompt)
		if err != nil {
			return err
		}
		a.Prompt = strings.TrimRight(text, "\n")
	}
	if cli.Given("append-system-prompt") {
		text, err := textOrFile(ctx, "--append-system-prompt", cli.AppendSystemPrompt)
		if err != nil {
			return err
		}
		a.Prompt = strings.TrimRight(a.Prompt, "\n") + "\n\n" + strings.TrimRight(text, "\n")
	}
	return nil
}

// systemPromptKept is the warning for a resumed session, whose stored system prompt is
// the one sent: the flags shape new sessions only.
func systemPromptKept(cli *CLI, id string) string {
	if !cli.Given("system-prompt") && !cli.Given("append-system-prompt") {
		return ""
	}
	return "session " + id + " is resumed with the system prompt it started with; --system-prompt and --append-system-prompt apply to new sessions"
}
