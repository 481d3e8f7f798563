package config

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/infile"
	"github.com/kimi-run/kimi-run/tools"
)

// Instruction is the prompt the command line gives (-p or -c, prompt words, or
// --prompt-file), trimmed; fromStdin says the prompt is "-", stdin itself (which run/
// reads).
func (s *Settings) Instruction(ctx context.Context) (prompt string, fromStdin bool, err error) {
	cli := &s.Flags // Resolve refused more than one way
	// named is the way an instruction was given on the command line, even an empty one.
	named := ""
	switch {
	case s.Prompt == "-" || (len(cli.Words) == 1 && cli.Words[0] == "-"):
		return "", true, nil
	case s.Prompt != "" || s.PromptGiven:
		prompt, named = s.Prompt, "-p"
	case len(cli.Words) > 0:
		prompt, named = strings.Join(cli.Words, " "), "the prompt"
	case cli.PromptFile != "" || cli.Given("prompt-file"):
		if cli.PromptFile == "" {
			return "", false, Usagef("empty prompt: --prompt-file names no file")
		}
		b, err := readFileCapped(ctx, cli.PromptFile)
		if err != nil {
			return "", false, err
		}
		prompt, named = b, "--prompt-file "+cli.PromptFile
	}
	prompt = strings.TrimSpace(prompt)
	if named != "" && prompt == "" {
		// An instruction that came out empty (`-p "$PROMPT"` with PROMPT unset) must not be
		// replaced by whatever is piped in: a diff is context, not a task for an agent
		// that runs every command it wants.
		return "", false, Usagef("empty prompt: %s is empty (piped stdin is only ever context, never the instruction)", named)
	}
	return prompt, false, nil
}

// readFileCapped reads a prompt's file (--prompt-file, a TEXT|FILE flag) within
// infile.Prompt, as stdin is bounded.
func readFileCapped(ctx context.Context, path string) (string, error) {
	b, err := infile.Read(ctx, path, infile.Prompt)
	var tl *infile.TooLargeError
	switch {
	case errors.As(err, &tl):
		return "", Usagef("prompt file %v", err)
	case err != nil && ctx.Err() != nil:
		return "", err
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrPermission):
		return "", Usagef("prompt file: %w", err)
	case err != nil:
		return "", Usagef("prompt file %s: %v", path, err)
	}
	return string(b), nil
}

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
		return "", Usagef("%s is empty", flag)
	}
	if fi, err := os.Stat(v); err == nil && !fi.IsDir() {
		text, err := readFileCapped(ctx, v)
		if err != nil {
			return "", Usagef("%s: %w", flag, err)
		}
		if strings.TrimSpace(text) == "" {
			return "", Usagef("%s: the file %s is empty", flag, v)
		}
		return text, nil
	}
	if looksLikePath().MatchString(v) {
		return "", Usagef("%s %s: no such file (give the text itself with a space in it, or a file that exists)", flag, filepath.Clean(v))
	}
	return v, nil
}

// ApplySystemPrompt is the agent's system prompt (the built-in one or an agent file's)
// with --system-prompt in its place and --append-system-prompt after it, as Claude Code's
// flags do. The text is used as given, not as a template. Subagents keep theirs.
func (f *Flags) ApplySystemPrompt(ctx context.Context, prompt string) (string, error) {
	if f.Given("system-prompt") {
		text, err := textOrFile(ctx, "--system-prompt", f.SystemPrompt)
		if err != nil {
			return "", err
		}
		prompt = strings.TrimRight(text, "\n")
	}
	if f.Given("append-system-prompt") {
		text, err := textOrFile(ctx, "--append-system-prompt", f.AppendSystemPrompt)
		if err != nil {
			return "", err
		}
		prompt = strings.TrimRight(prompt, "\n") + "\n\n" + strings.TrimRight(text, "\n")
	}
	return prompt, nil
}

// SystemPromptKept is the warning for a resumed session, whose stored system prompt is
// the one sent: the flags shape new sessions only.
func (f *Flags) SystemPromptKept(id string) string {
	if !f.Given("system-prompt") && !f.Given("append-system-prompt") {
		return ""
	}
	return "session " + id + " is resumed with the system prompt it started with; --system-prompt and --append-system-prompt apply to new sessions"
}

// LoadImages reads the --image files before any model call. A model without the image_in
// capability is refused rather than sent pictures it would reject or ignore.
func (s *Settings) LoadImages(ctx context.Context) ([]event.Image, error) {
	cli := &s.Flags
	if len(cli.Image) == 0 {
		return nil, nil
	}
	if !s.Endpoint.Reads("image_in") {
		return nil, Usagef("--image: the model %s does not have the image_in capability; give its config entry capabilities = [\"image_in\"] or set KIMI_MODEL_CAPABILITIES=image_in if it reads images", s.Endpoint.Model)
	}
	var out []event.Image
	for _, path := range cli.Image {
		data, err := infile.Read(ctx, path, infile.Image)
		var tl *infile.TooLargeError
		switch {
		case errors.As(err, &tl):
			return nil, Usagef("--image %s is larger than %s", path, infile.Size(tl.Max))
		case err != nil:
			return nil, Usagef("--image: %w", err)
		}
		// The type comes from the content, never the name, as for ReadMediaFile.
		mime, isImage, _ := tools.SniffMedia(data)
		if !isImage {
			return nil, Usagef("--image %s is %s, not a PNG, JPEG, GIF or WebP image", path, mime)
		}
		out = append(out, event.Image{MIME: mime, Data: data})
	}
	return out, nil
}
