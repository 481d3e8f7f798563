package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/internal/infile"
)

// readPrompt assembles the task from -p, prompt words, --prompt-file and stdin, as the
// docs/usage.md's "Prompt input" says. With optional set (a --flow run, whose nodes are the prompts) no prompt is
// needed and "" may come back. warn reports what was ignored.
func readPrompt(ctx context.Context, s *config.Settings, stdin infile.Stdin, optional bool, warn func(string)) (string, error) {
	if s.Flags.NoStdin {
		stdin = nil
	}
	prompt, fromStdin, err := s.Instruction(ctx)
	if err != nil {
		return "", err
	}
	switch kind := infile.KindOf(stdin); {
	case fromStdin:
		prompt, err = promptFromStdin(ctx, stdin, kind)
	case kind == infile.StdinPipe || kind == infile.StdinFile:
		prompt, err = withPipedContext(ctx, s, stdin, kind == infile.StdinPipe, prompt, optional, warn)
	}
	if err != nil {
		return "", err
	}
	if prompt == "" && !optional {
		return "", usagef("empty prompt: pass -p TEXT, prompt words, --prompt-file FILE, or pipe it on stdin")
	}
	return prompt, nil
}

// promptFromStdin reads the prompt "-": all of stdin, which must not be a terminal.
func promptFromStdin(ctx context.Context, stdin infile.Stdin, kind infile.StdinKind) (string, error) {
	if kind == infile.StdinTerminal {
		return "", usagef("prompt - reads stdin, but stdin is a terminal")
	}
	text, err := readStdin(ctx, stdin, 0, 0, nil)
	if err != nil {
		return "", err
	}
	prompt := strings.TrimSpace(text)
	if prompt == "" {
		return "", usagef("empty prompt: prompt - reads stdin, which held nothing")
	}
	return prompt, nil
}

// withPipedContext reads a piped (or redirected) stdin: the prompt itself when the command
// line gave none, else context attached to it. With a prompt (or a flow) in hand, a pipe
// that never sends a byte (a CI runner's inherited stdin that stays open) is given up on
// after --stdin-timeout. A slow producer in front (`go test ./... | kimi-run -p ...`) only
// has to start writing by then.
func withPipedContext(ctx context.Context, s *config.Settings, stdin infile.Stdin, pipe bool, prompt string, optional bool, warn func(string)) (string, error) {
	grace := time.Duration(0)
	if (prompt != "" || optional) && pipe {
		grace = s.StdinTimeout
	}
	notice := func() {
		if grace > 0 {
			warn(fmt.Sprintf("waiting for stdin, which is a pipe that has sent nothing yet (pass --no-stdin or </dev/null if nothing is piped; given up after %s)", grace))
			return
		}
		// Without a prompt, stdin is the prompt: waited for as long as it takes.
		warn("waiting for the prompt on stdin, which is a pipe that has sent nothing yet (pass -p TEXT, or --no-stdin if nothing is piped)")
	}
	every := s.Flags.StdinNotice
	if !pipe || (grace > 0 && grace <= every) {
		notice = nil // a file never keeps a reader waiting; a short grace needs no notice
	}
	text, err := readStdin(ctx, stdin, grace, every, notice)
	switch {
	case errors.Is(err, infile.ErrStdinSilent):
		warn(fmt.Sprintf("stdin sent nothing for %s; ignoring it", grace))
	case err != nil:
		return "", err
	case strings.TrimSpace(text) == "":
		if prompt != "" {
			// `cmd | kimi-run -p "review this"` where cmd printed nothing (or failed):
			// the run goes on, but the log should say the context is missing.
			warn("stdin was empty: the prompt runs without the piped context")
		}
	case prompt == "":
		return strings.TrimSpace(text), nil
	default:
		return prompt + "\n\n<stdin>\n" + strings.TrimRight(text, "\n") + "\n</stdin>", nil
	}
	return prompt, nil
}

// readStdin is infile.ReadStdin, with a stdin too large for a prompt a usage error.
func readStdin(ctx context.Context, r io.Reader, grace, noticeAfter time.Duration, notice func()) (string, error) {
	text, err := infile.ReadStdin(ctx, r, grace, noticeAfter, notice)
	if tl := (*infile.TooLargeError)(nil); errors.As(err, &tl) {
		return "", usagef("%v; pass a smaller input or a file path in the prompt", err)
	}
	return text, err
}
