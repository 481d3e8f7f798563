package ralph

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/kimi-run/kimi-run/internal/infile"
)

// ErrNoFlowBlock means a Markdown document holds no ```mermaid or ```d2 fenced block.
var ErrNoFlowBlock = errors.New("no ```mermaid or ```d2 block")

// ErrUnknownFormat means LoadFlow cannot tell the flowchart language from the file name.
var ErrUnknownFormat = errors.New("unknown flow format (want .mmd, .mermaid, .d2 or .md)")

// LoadFlow reads and parses the flow in path, choosing the parser by extension: .mmd and
// .mermaid are Mermaid, .d2 is D2, and .md and .markdown use the first ```mermaid or ```d2
// block. Errors name path as the file.
func LoadFlow(path string) (*Flow, error) {
	// A regular file only, so reading it never waits (see infile.Flow).
	src, err := infile.Read(context.Background(), path, infile.Flow)
	if err != nil {
		return nil, fmt.Errorf("read flow: %w", err)
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".mmd", ".mermaid":
		return ParseMermaid(path, src)
	case ".d2":
		return ParseD2(path, src)
	case ".md", ".markdown":
		return ParseMarkdown(path, src)
	}
	return nil, fmt.Errorf("load %s: %w", path, ErrUnknownFormat)
}

// ParseMarkdown parses the first ```mermaid or ```d2 fenced block of a Markdown document.
// Line numbers in errors count from the top of the document.
func ParseMarkdown(name string, src []byte) (*Flow, error) {
	lang, body, line, ok := flowBlock(string(src))
	if !ok {
		return nil, fmt.Errorf("%s: %w", position(name, 0), ErrNoFlowBlock)
	}
	if lang == "d2" {
		return parseD2(name, body, line)
	}
	return parseMermaid(name, body, line)
}

// flowBlock finds the first fenced code block whose info string starts with mermaid or d2.
// It returns the language, the block's text and the line number of its first text line.
// A block left open runs to the end of the document, as in CommonMark.
func flowBlock(doc string) (lang, body string, line int, ok bool) {
	lines := strings.Split(doc, "\n")
	for i := 0; i < len(lines); i++ {
		fence, info, isFence := openFence(lines[i])
		if !isFence {
			continue
		}
		end := len(lines)
		for j := i + 1; j < len(lines); j++ {
			t := strings.TrimSpace(lines[j])
			if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				end = j
				break
			}
		}
		word, _, _ := strings.Cut(info, " ")
		if word = strings.ToLower(word); word == "mermaid" || word == "d2" {
			return word, strings.Join(lines[i+1:end], "\n"), i + 2, true
		}
		i = end // skip the other block whole, so its content is not taken for a fence
	}
	return "", "", 0, false
}

// openFence reports whether line opens a fenced code block (three or more backticks or
// tildes, indented at most three spaces) and returns the fence and the info string.
func openFence(line string) (fence, info string, ok bool) {
	t := strings.TrimRight(line, "\r")
	trimmed := strings.TrimLeft(t, " ")
	if len(t)-len(trimmed) > 3 || trimmed == "" {
		return "", "", false
	}
	ch := trimmed[0]
	if ch != '`' && ch != '~' {
		return "", "", false
	}
	n := 0
	for n < len(trimmed) && trimmed[n] == ch {
		n++
	}
	if n < 3 {
		return "", "", false
	}
	return trimmed[:n], strings.TrimSpace(trimmed[n:]), true
}
