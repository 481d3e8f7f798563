package tools

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"unicode/utf8"

	"github.com/kimi-run/kimi-run/internal/infile"
	"github.com/kimi-run/kimi-run/tools/search"
)

// ReadFile limits.
const (
	// ReadMaxLines is the most lines one ReadFile call returns.
	ReadMaxLines = 1000
	// ReadMaxLineChars is the most characters of one numbered line, number and tab
	// included, so the agent's Cap never cuts it again; longer lines end in "...".
	ReadMaxLineChars = MaxLineChars
	// ReadMaxBytes is the most bytes of numbered lines one call returns.
	ReadMaxBytes = 100 << 10
	// readMaxChars keeps the listing inside the agent's Cap with room for the footer, so
	// the footer that tells the model where to go on is never cut off.
	readMaxChars = MaxOutputChars - 1000
	// readSniffBytes is how much of the file start is checked for binary content.
	readSniffBytes = 8 << 10
)

const readFileDescription = `Read a text file and return its lines numbered like cat -n (line number, a tab, the text).

path is absolute, or relative to the work dir (a relative path may not leave the work dir).
line_offset is the 1-based line to start at (default 1). A negative value counts from the end: -100 reads the last 100 lines (at least -{read_max_lines}).
n_lines is how many lines to read (default and maximum {read_max_lines}).

One call returns at most {read_max_lines} lines and {read_max_bytes}; a numbered line longer than {read_max_line_chars} characters is cut and ends with "...". A last line in brackets says which lines were returned, how many lines the file has, and which limit stopped the read, so a large file can be read in pages by raising line_offset.

Binary files, directories and files that usually hold secrets (.env, private keys, credential files) are refused.`

// readFileArgs are the arguments of a ReadFile call.
type readFileArgs struct {
	Path       string `json:"path" description:"file to read: absolute, or relative to the work dir"`
	LineOffset int    `json:"line_offset,omitempty" default:"1" description:"1-based first line to read (default 1); negative counts from the end, e.g. -100 for the last 100 lines"`
	NLines     int    `json:"n_lines,omitempty" default:"1000" minimum:"1" description:"number of lines to read; default and maximum {read_max_lines}"`
}

// NewReadFile returns the ReadFile tool, which reads text files by line.
func NewReadFile(env Env) Tool {
	return New("ReadFile", readFileDescription, Facts{ReadsFiles: true, PathArg: "path", ReadOnly: true}, func(ctx context.Context, in readFileArgs) (Result, error) {
		return readFile(ctx, env, in)
	})
}

func readFile(ctx context.Context, env Env, in readFileArgs) (Result, error) {
	path, err := ResolvePath(env.WorkDir, in.Path, env.AddDirs...)
	if err != nil {
		return Errorf("cannot read: %v", err), nil
	}
	if reason, ok := search.SensitiveFile(path); ok {
		return Errorf("refusing to read %s: %s, and what is read is sent to the model provider", in.Path, reason).Deny(DeniedByGuard, SecretFileRule), nil
	}
	if in.NLines < 0 {
		return Errorf("n_lines must be positive, got %d", in.NLines), nil
	}
	if in.LineOffset < -ReadMaxLines {
		return Errorf("line_offset %d is too far from the end: negative offsets go down to -%d; use a positive line_offset to read further back",
			in.LineOffset, ReadMaxLines), nil
	}
	want := in.NLines
	if want == 0 || want > ReadMaxLines {
		want = ReadMaxLines
	}

	// Opened without waiting: a FIFO nobody writes to is refused at once, as a device is.
	f, err := infile.Open(ctx, path, infile.ToolRead)
	var nr *infile.NotRegularError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Errorf("cannot read %s: %v", in.Path, err).WithKimi(fmt.Sprintf("`%s` does not exist.", in.Path), ""), nil
	case errors.As(err, &nr) && nr.Mode.IsDir():
		return Errorf("%s is a directory, not a file; list it with Shell (ls) or Glob", in.Path).WithKimi(fmt.Sprintf("`%s` is not a file.", in.Path), ""), nil
	case errors.As(err, &nr):
		return Errorf("%v; only regular files can be read", &infile.NotRegularError{Path: in.Path, Mode: nr.Mode}), nil
	case err != nil:
		return Errorf("cannot read %s: %v", in.Path, err), nil
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return Errorf("cannot read %s: %v", in.Path, err), nil
	}

	r := bufio.NewReaderSize(f, 64<<10)
	head, err := r.Peek(readSniffBytes)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return Errorf("cannot read %s: %v", in.Path, err), nil
	}
	if looksBinary(head) {
		return Errorf("%s looks like a binary file (%d bytes); ReadFile reads text only. Inspect it with Shell (e.g. file, xxd | head) instead",
			in.Path, info.Size()), nil
	}

	var sel lineSelection
	if in.LineOffset < 0 {
		sel, err = selectTail(ctx, r, -in.LineOffset, want)
	} else {
		sel, err = selectRange(ctx, r, max(in.LineOffset, 1), want)
	}
	if err != nil {
		if ctx.Err() != nil {
			return Errorf("reading %s was cancelled", in.Path), nil
		}
		return Errorf("cannot read %s: %v", in.Path, err), nil
	}
	return Text(sel.render(in.LineOffset, in.NLines)).WithKimi(sel.kimiMessage(in.NLines)), nil
}

// looksBinary reports whether the start of a file is not text: it holds a NUL byte, or
// more than a tenth of it is invalid UTF-8 or control characters that text does not use.
// A few stray invalid bytes (a Latin-1 name in a comment) still count as text; they are
// shown as U+FFFD.
func looksBinary(p []byte) bool {
	if len(p) == 0 {
		return false
	}
	bad := 0
	for i := 0; i < len(p); {
		b := p[i]
		if b < utf8.RuneSelf {
			if b == 0 {
				return true
			}
			if b < 0x20 && b != '\n' && b != '\r' && b != '\t' && b != '\f' && b != '\v' && b != '\b' && b != 0x1b {
				bad++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(p[i:])
		if r == utf8.RuneError && size == 1 {
			if !utf8.FullRune(p[i:]) && len(p)-i < utf8.UTFMax {
				break // a character cut by the end of the sample
			}
			bad++
		}
		i += size
	}
	return bad*10 > len(p)
}

// render formats the picked lines like cat -n, stopping at the byte and character caps,
// and ends with a footer that says what was read.
func (sel lineSelection) render(offset, nLines int) string {
	body, shown, capHit, cutLines := sel.numbered()
	return body + sel.footer(shown, capHit, cutLines, offset, nLines)
}

// kimiMessage words what render read as Kimi CLI's ReadFile does (tools/file/read.py), for
// Kimi's message lines: the numbered lines are its output, this its message.
func (sel lineSelection) kimiMessage(nLines int) (message, output string) {
	body, shown, capHit, cutLines := sel.numbered()
	if shown > 0 {
		message = fmt.Sprintf("%d lines read from file starting from line %d.", shown, sel.start)
	} else {
		message = "No lines read from file."
	}
	message += fmt.Sprintf(" Total lines in file: %d.", sel.total)
	want := nLines
	if want <= 0 || want > ReadMaxLines {
		want = ReadMaxLines
	}
	switch {
	case capHit == "" && shown == ReadMaxLines && want == ReadMaxLines:
		message += fmt.Sprintf(" Max %d lines reached.", ReadMaxLines)
	case capHit != "":
		message += fmt.Sprintf(" Max %d bytes reached.", ReadMaxBytes)
	case shown < want:
		message += " End of file reached."
	}
	if len(cutLines) > 0 {
		nums := make([]string, len(cutLines))
		for i, n := range cutLines {
			nums[i] = fmt.Sprint(n)
		}
		message += fmt.Sprintf(" Lines [%s] were truncated.", strings.Join(nums, ", "))
	}
	return message, body
}

// numbered formats the picked lines like cat -n up to the caps of one read: the text, how
// many lines it holds, which cap stopped it ("" for none) and which lines were cut.
func (sel lineSelection) numbered() (string, int, string, []int) {
	var b strings.Builder
	bytes, chars := 0, 0
	var cutLines []int
	shown := 0
	capHit := ""
	for _, l := range sel.lines {
		prefix := fmt.Sprintf("%6d\t", l.n)
		text, cut := fitLine(l.text, l.cut, ReadMaxLineChars-len(prefix))
		line := prefix + text + "\n"
		c := utf8.RuneCountInString(line)
		if bytes+len(line) > ReadMaxBytes {
			capHit = fmt.Sprintf("the %d KiB limit of one read", ReadMaxBytes>>10)
			break
		}
		if chars+c > readMaxChars {
			capHit = fmt.Sprintf("the %d-character limit of one read", readMaxChars)
			break
		}
		b.WriteString(line)
		bytes += len(line)
		chars += c
		shown++
		if cut {
			cutLines = append(cutLines, l.n)
		}
	}
	return b.String(), shown, capHit, cutLines
}

// footer says which lines were returned, out of how many, and how to read on.
func (sel lineSelection) footer(shown int, capHit string, cutLines []int, offset, nLines int) string {
	if sel.total == 0 {
		return "[The file is empty.]"
	}
	if shown == 0 && capHit == "" {
		return fmt.Sprintf("[No lines read: line_offset %d is past the end of the file, which has %d lines.]", offset, sel.total)
	}
	first := sel.start
	last := first + shown - 1
	var b strings.Builder
	fmt.Fprintf(&b, "[Lines %d-%d of %d.", first, last, sel.total)
	switch {
	case capHit != "":
		fmt.Fprintf(&b, " Stopped at %s; continue with line_offset=%d.", capHit, last+1)
	case last >= sel.total:
		b.WriteString(" End of file reached.")
	case shown == ReadMaxLines && (nLines == 0 || nLines >= ReadMaxLines):
		fmt.Fprintf(&b, " Stopped at the %d-line limit; continue with line_offset=%d.", ReadMaxLines, last+1)
	default:
		fmt.Fprintf(&b, " More lines follow; continue with line_offset=%d.", last+1)
	}
	if len(cutLines) > 0 {
		const listMax = 20
		list := make([]string, 0, min(len(cutLines), listMax))
		for _, n := range cutLines[:min(len(cutLines), listMax)] {
			list = append(list, fmt.Sprint(n))
		}
		more := ""
		if len(cutLines) > listMax {
			more = fmt.Sprintf(" and %d more", len(cutLines)-listMax)
		}
		fmt.Fprintf(&b, " Lines cut to fit %d characters: %s%s.", ReadMaxLineChars, strings.Join(list, ", "), more)
	}
	b.WriteString("]")
	return b.String()
}
