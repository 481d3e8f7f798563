package scripted

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"
)

// Scenario loads testdata/scenarios/NAME.txtar from the module root, found by
// walking up from the working directory to go.mod, so any package's tests can
// use the shared scenarios.
func Scenario(t testing.TB, name string) []Response {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatalf("scripted: %v", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatalf("scripted: no go.mod above the working directory")
		}
		dir = parent
	}
	return Load(t, filepath.Join(dir, "testdata", "scenarios", name+".txtar"))
}

// Load reads a txtar scenario file and fails t if it cannot be read or parsed.
func Load(t testing.TB, path string) []Response {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("scripted: %v", err)
	}
	rs, err := Parse(data)
	if err != nil {
		t.Fatalf("scripted: %s: %v", path, err)
	}
	return rs
}

// Parse reads a txtar scenario: the comment is prose, and each file section is
// one response in script order, written as a raw HTTP response (status line,
// headers, blank line, body). Lines starting with "#!" are directives: in the
// head "#!forever" and "#!headers-delay DURATION"; in the body "#!repeat N
// TEXT", "#!sleep DURATION", "#!cut" and "#!hang". CRLF line ends are read as LF
// so files checked out on Windows behave the same.
func Parse(data []byte) ([]Response, error) {
	ar := txtar.Parse(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")))
	if len(ar.Files) == 0 {
		return nil, errors.New("no responses")
	}
	out := make([]Response, 0, len(ar.Files))
	for i, f := range ar.Files {
		r, err := parseResponse(string(f.Data))
		if err != nil {
			return nil, fmt.Errorf("response %d (%s): %w", i+1, f.Name, err)
		}
		out = append(out, r)
	}
	return out, nil
}

func parseResponse(text string) (Response, error) {
	head, body, _ := strings.Cut(text, "\n\n")
	lines := strings.Split(strings.TrimRight(head, "\n"), "\n")
	status := strings.Fields(lines[0])
	if len(status) < 2 || !strings.HasPrefix(status[0], "HTTP/") {
		return Response{}, fmt.Errorf("status line %q, want like \"HTTP/1.1 200 OK\"", lines[0])
	}
	code, err := strconv.Atoi(status[1])
	if err != nil || code < 100 || code > 999 {
		return Response{}, fmt.Errorf("status code %q", status[1])
	}
	r := Response{status: code}
	for _, line := range lines[1:] {
		switch name, arg, _ := strings.Cut(line, " "); {
		case name == "#!forever":
			r.forever = true
		case name == "#!headers-delay":
			if r.delay, err = time.ParseDuration(arg); err != nil {
				return Response{}, fmt.Errorf("headers-delay: %w", err)
			}
		case strings.HasPrefix(line, "#!"):
			return Response{}, fmt.Errorf("directive %q not allowed in the head", line)
		default:
			k, v, ok := strings.Cut(line, ":")
			if !ok {
				return Response{}, fmt.Errorf("header line %q has no colon", line)
			}
			r = r.Header(strings.TrimSpace(k), strings.TrimSpace(v))
		}
	}
	r.steps, err = parseBody(body, r.streamed())
	return r, err
}

// parseBody turns the body into steps. Event-stream bodies are split at blank
// lines so that each event is flushed on its own.
func parseBody(body string, sse bool) ([]step, error) {
	var steps []step
	var pending strings.Builder
	flush := func() {
		if pending.Len() > 0 {
			steps = append(steps, step{kind: stepWrite, data: []byte(pending.String())})
			pending.Reset()
		}
	}
	for line := range strings.SplitAfterSeq(body, "\n") {
		if !strings.HasPrefix(line, "#!") {
			pending.WriteString(line)
			if sse && line == "\n" {
				flush()
			}
			continue
		}
		flush()
		st, err := parseDirective(strings.TrimSuffix(line[2:], "\n"))
		if err != nil {
			return nil, err
		}
		steps = append(steps, st)
	}
	flush()
	return steps, nil
}

func parseDirective(text string) (step, error) {
	name, arg, _ := strings.Cut(text, " ")
	switch name {
	case "cut", "hang":
		if arg != "" {
			return step{}, fmt.Errorf("#!%s takes no argument", name)
		}
		if name == "cut" {
			return step{kind: stepCut}, nil
		}
		return step{kind: stepHang}, nil
	case "sleep":
		d, err := time.ParseDuration(arg)
		if err != nil {
			return step{}, fmt.Errorf("#!sleep: %w", err)
		}
		return step{kind: stepSleep, d: d}, nil
	case "repeat":
		count, unit, _ := strings.Cut(arg, " ")
		n, err := strconv.Atoi(count)
		if err != nil || n < 0 {
			return step{}, fmt.Errorf("#!repeat count %q", count)
		}
		if strings.HasPrefix(unit, `"`) {
			if unit, err = strconv.Unquote(unit); err != nil {
				return step{}, fmt.Errorf("#!repeat text: %w", err)
			}
		} else {
			unit += "\n"
		}
		return step{kind: stepWrite, data: bytes.Repeat([]byte(unit), n)}, nil
	}
	return step{}, fmt.Errorf("unknown directive #!%s", name)
}
