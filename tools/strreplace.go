package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/kimi-run/kimi-run/internal/infile"
	"github.com/kimi-run/kimi-run/tools/search"
)

// strReplaceMaxBytes is the largest file StrReplaceFile edits; the whole file is held in
// memory while the edits are applied.
const strReplaceMaxBytes = 32 << 20

const strReplaceDescription = `Edit a file by replacing exact text.

path is absolute, or relative to the work dir (a relative path may not leave the work dir).
edit is one {"old", "new", "replace_all"} object or a list of them. Each edit replaces old with new: only the first occurrence, or every occurrence when replace_all is true. Edits apply in order, each to the result of the ones before.

old must match the file exactly, including whitespace, indentation and line breaks; read the file first and copy the text from it (without the line numbers). Include enough surrounding lines to make old point at the right place. If any edit's old text is not found, the call fails and the file is left unchanged.

The file keeps its permissions and is replaced atomically. To create a file or rewrite it whole, use WriteFile.`

// strReplaceSchema is written by hand because edit takes an object or a list of objects.
// The edit object is spelled out twice rather than shared through $ref, which some
// OpenAI-compatible servers do not resolve.
const strReplaceSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "file to edit: absolute, or relative to the work dir"},
    "edit": {
      "description": "one edit, or a list of edits applied in order",
      "anyOf": [
        {
          "type": "object",
          "properties": {
            "old": {"type": "string", "description": "exact text to find; must not be empty"},
            "new": {"type": "string", "description": "text to put in its place"},
            "replace_all": {"type": "boolean", "default": false, "description": "replace every occurrence instead of the first; default false"}
          },
          "required": ["old", "new"],
          "additionalProperties": false
        },
        {"type": "array", "items": {
          "type": "object",
          "properties": {
            "old": {"type": "string", "description": "exact text to find; must not be empty"},
            "new": {"type": "string", "description": "text to put in its place"},
            "replace_all": {"type": "boolean", "default": false, "description": "replace every occurrence instead of the first; default false"}
          },
          "required": ["old", "new"],
          "additionalProperties": false
        }}
      ]
    }
  },
  "required": ["path", "edit"],
  "additionalProperties": false
}`

// strEdit is one replacement asked for by the model.
type strEdit struct {
	Old        string
	New        string
	ReplaceAll bool
}

// strEdits decodes the edit argument: one object, a list of objects, or either of those
// sent as a JSON string (some models encode nested arguments twice).
type strEdits []strEdit

// UnmarshalJSON accepts an edit object, a list of them, or a string holding either.
func (e *strEdits) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		b = bytes.TrimSpace([]byte(s))
	}
	var list []wireEdit
	switch {
	case len(b) > 0 && b[0] == '[':
		if err := json.Unmarshal(b, &list); err != nil {
			return fmt.Errorf("edit: %w", err)
		}
	case len(b) > 0 && b[0] == '{':
		var one wireEdit
		if err := json.Unmarshal(b, &one); err != nil {
			return fmt.Errorf("edit: %w", err)
		}
		list = []wireEdit{one}
	default:
		return errors.New(`edit must be an object {"old": ..., "new": ...} or a list of such objects`)
	}
	out := make(strEdits, len(list))
	for i, w := range list {
		if w.Old == nil || w.New == nil {
			return fmt.Errorf("edit %d of %d: both old and new must be given", i+1, len(list))
		}
		out[i] = strEdit{Old: *w.Old, New: *w.New, ReplaceAll: w.ReplaceAll}
	}
	*e = out
	return nil
}

// wireEdit is an edit as sent, with pointers so a missing field can be told from an
// empty one: a forgotten "new" must not delete text.
type wireEdit struct {
	Old        *string `json:"old"`
	New        *string `json:"new"`
	ReplaceAll bool    `json:"replace_all"`
}

// strReplaceArgs are the arguments of a StrReplaceFile call.
type strReplaceArgs struct {
	Path string   `json:"path"`
	Edit strEdits `json:"edit"`
}

// NewStrReplaceFile returns the StrReplaceFile tool, which edits files by exact
// text replacement.
func NewStrReplaceFile(env Env) Tool {
	return newWithSchema("StrReplaceFile", strReplaceDescription, strReplaceSchema, Facts{ReadsFiles: true, WritesFiles: true, PathArg: "path", Destructive: true}, func(_ context.Context, in strReplaceArgs) (Result, error) {
		return strReplace(env, in), nil
	})
}

func strReplace(env Env, in strReplaceArgs) Result {
	if len(in.Edit) == 0 {
		return Errorf("edit holds no edits; give one {\"old\", \"new\"} object or a list of them")
	}
	for i, e := range in.Edit {
		if e.Old == "" {
			return Errorf("edit %d of %d: old is empty; give the exact text to replace (use WriteFile to write a whole file)", i+1, len(in.Edit))
		}
	}
	path, err := ResolvePath(env.WorkDir, in.Path, env.AddDirs...)
	if err != nil {
		return Errorf("cannot edit: %v", err)
	}
	// An edit reads the file: whether old text is found tells the model what the file
	// holds, one guess at a time. Files ReadFile refuses are refused here too.
	if reason, ok := search.SensitiveFile(path); ok {
		return Errorf("refusing to edit %s: %s; ReadFile refuses it too. WriteFile can overwrite it or append to it", in.Path, reason).Deny(DeniedByGuard, SecretFileRule)
	}
	if path, err = followLink(path); err != nil {
		return Errorf("cannot edit %s: %v", in.Path, err)
	}
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Errorf("cannot edit %s: %v", in.Path, err).WithKimi(fmt.Sprintf("`%s` does not exist.", in.Path), "")
	case err != nil:
		return Errorf("cannot edit %s: %v", in.Path, err)
	case info.IsDir():
		return Errorf("cannot edit %s: it is a directory", in.Path).WithKimi(fmt.Sprintf("`%s` is not a file.", in.Path), "")
	case !info.Mode().IsRegular():
		return Errorf("cannot edit %s: it is not a regular file", in.Path)
	case info.Size() > strReplaceMaxBytes:
		return Errorf("cannot edit %s: it is %d bytes, more than the %d MiB StrReplaceFile handles; use Shell (sed, a script) instead",
			in.Path, info.Size(), strReplaceMaxBytes>>20)
	}
	// The file may have changed since Stat: still a regular file of at most the cap.
	data, err := infile.Read(context.Background(), path, infile.Limit{Max: strReplaceMaxBytes, RegularOnly: true})
	if err != nil {
		return Errorf("cannot edit %s: %v", in.Path, err)
	}

	original := string(data)
	content := original
	replacements := 0
	var notes []string
	for i, e := range in.Edit {
		n := strings.Count(content, e.Old)
		if n == 0 {
			return Errorf("edit %d of %d: old text not found in %s%s. No edit was applied; the file is unchanged.",
				i+1, len(in.Edit), in.Path, missHint(original, content, e.Old, i)).
				WithKimi("No replacements were made. The old string was not found in the file.", "")
		}
		if e.ReplaceAll {
			content = strings.ReplaceAll(content, e.Old, e.New)
			replacements += n
			continue
		}
		content = strings.Replace(content, e.Old, e.New, 1)
		replacements++
		if n > 1 {
			notes = append(notes, fmt.Sprintf("edit %d: old text occurs %d times; only the first was replaced (set replace_all to replace all)", i+1, n))
		}
	}

	if content == original {
		notes = append(notes, "the new content equals the old, so the file was not rewritten")
	} else if err := changing(env, path, func() error { return writeAtomic(env, path, []byte(content), info.Mode().Perm()) }); err != nil {
		return Errorf("cannot edit %s: %v", in.Path, err)
	}
	msg := fmt.Sprintf("Edited %s: applied %d %s with %d %s.", in.Path,
		len(in.Edit), plural(len(in.Edit), "edit", "edits"), replacements, plural(replacements, "replacement", "replacements"))
	if len(notes) > 0 {
		msg += " Note: " + strings.Join(notes, "; ") + "."
	}
	return Text(msg).WithKimi(fmt.Sprintf("File successfully edited. Applied %d edit(s) with %d total replacement(s).", len(in.Edit), replacements), "")
}

// missHint suggests why an edit's old text was not found. It never quotes the file.
func missHint(original, content, old string, index int) string {
	switch {
	case index > 0 && strings.Contains(original, old):
		return " (it is in the original file, but an earlier edit of this call changed it)"
	case strings.Contains(content, "\r\n") && !strings.Contains(old, "\r\n") &&
		strings.Contains(content, strings.ReplaceAll(old, "\n", "\r\n")):
		return " (the file uses CRLF line breaks; old uses LF)"
	case strings.TrimSpace(old) != old && strings.Contains(content, strings.TrimSpace(old)):
		return " (it matches only without its leading or trailing whitespace)"
	}
	return ""
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
