package main

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var walkthrough = flag.Bool("walkthrough", false, "add a flag, a tool, an event type and a wire protocol to scratch copies of the repository as docs/design.md says, and count the files (slow: .ci/run runs it)")

// The three walkthroughs of docs/design.md's "The house", redone for real (issue 28):
// each adds one thing to a scratch copy of this checkout by its checklist, regenerates
// what the checklist says is generated, then builds, vets and runs the tests of every
// package it touched, of those the checklist names, and of run/ (where lists of tools and
// flags used to hide). A change may touch at most three files by hand besides its own new
// files, its tests and the user docs (README.md, docs/), with at most one regeneration command; the files it
// regenerates do not count, and nothing else may change.
// Every file touched by hand must be named by the checklist.
type change struct {
	checklist string     // the heading of its section in docs/design.md
	edits     []edit     // what a newcomer writes, in the checklist's order
	generate  [][]string // the documented commands that regenerate files, run in the copy
	generated []string   // the files those commands may rewrite
	packages  []string   // the tests to run besides the touched packages'
}

// edit is one change to one file: its new content made from the old.
type edit struct {
	file string
	do   func(t *testing.T, old string) string
}

func TestWalkthrough(t *testing.T) {
	if !*walkthrough {
		t.Skip("slow: run with -walkthrough (.ci/run does)")
	}
	for name, c := range map[string]change{"event": eventChange(), "flag": flagChange(), "tool": toolChange(), "wire": wireChange()} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c.walk(t)
		})
	}
}

// eventChange adds an event type with a timing field, marked volatile, that text mode shows
// and the other renderers leave out, emitted before each retry of a model call: the
// record/replay tests of run/ (which retry) see it and must leave its time out.
func eventChange() change {
	return change{
		checklist: "### Add an event type",
		edits: []edit{
			{"event/payload.go", func(t *testing.T, s string) string {
				s = insertBefore(t, s, "\tTypeResult ", "\tTypeWalkthroughAttempt Type = \"walkthrough_attempt\"\n")
				s = insertBefore(t, s, "\t{Result{}, ", "\t{WalkthroughAttempt{}, KimiLines | Telemetry},\n")
				return s + `
// WalkthroughAttempt reports that an attempt at a model call failed and will be retried.
type WalkthroughAttempt struct {
// The step whose call failed.
Step int ` + "`json:\"step\" minimum:\"0\"`" + `
// The attempt that failed, from 1.
Attempt int ` + "`json:\"attempt\" minimum:\"1\"`" + `
// When it failed, in milliseconds since 1970.
UnixMS int64 ` + "`json:\"unix_ms\" minimum:\"0\" volatile:\"true\"`" + `
}

// Type is "walkthrough_attempt".
func (WalkthroughAttempt) Type() Type { return TypeWalkthroughAttempt }
`
			}},
			{"agent/step.go", func(t *testing.T, s string) string {
				return insertAfterLine(t, s, "MaxAttempts: attempts, DelayMS:", "\ta.emit(event.WalkthroughAttempt{Step: step, Attempt: int(n), UnixMS: time.Now().UnixMilli()})\n")
			}},
			{"output/progress.go", func(t *testing.T, s string) string {
				return insertBefore(t, s, "\tcase event.Result:", "\tcase event.WalkthroughAttempt:\n\t\tl.info(fmt.Sprintf(\"step %d: attempt %d failed\", d.Step, d.Attempt))\n")
			}},
		},
		generate:  [][]string{{"go", "test", "./internal/eventschema", "-run", "TestGenerated", "-update"}},
		generated: []string{"docs/events.schema.json", "docs/events.md"},
		packages:  []string{"./event/", "./internal/eventschema/", "./output/", "./telemetry/", "./run/"},
	}
}

// flagChange adds a flag that an environment variable and a config.toml key also set, and
// that reaches a tool as a cap: the most paths one Glob call returns.
func flagChange() change {
	return change{
		checklist: "### Add a flag",
		edits: []edit{
			{"tools/settings.go", func(t *testing.T, s string) string {
				s = insertBefore(t, s, "\tShellOutputBytes int ",
					"\tWalkthroughGlobCap int `name:\"walkthrough-glob-cap\" placeholder:\"N\" default:\"1000\" envvar:\"KIMI_RUN_WALKTHROUGH_GLOB_CAP\" config:\"tools.walkthrough_glob_cap\" help:\"Most paths one Glob call returns (at least 1).\"`\n")
				return insertBefore(t, s, "\tif n := s.ShellOutputBytes;",
					"\tif s.WalkthroughGlobCap < 1 {\n\t\treturn fmt.Errorf(\"--walkthrough-glob-cap must be at least 1, got %d\", s.WalkthroughGlobCap)\n\t}\n")
			}},
			{"tools/glob.go", func(t *testing.T, s string) string {
				return replaceOnce(t, s, "Limit: globLimit}", "Limit: min(globLimit, g.env.settings().WalkthroughGlobCap)}")
			}},
			{"tools/walkthroughglobcap_test.go", func(*testing.T, string) string {
				return `package tools

import (
"os"
"path/filepath"
"strings"
"testing"
)

func TestWalkthroughGlobCap(t *testing.T) {
dir := t.TempDir()
for _, name := range []string{"a.txt", "b.txt"} {
	os.WriteFile(filepath.Join(dir, name), nil, 0o644)
}
res := mustCall(t, NewGlob(Env{WorkDir: dir, Settings: Settings{WalkthroughGlobCap: 1}}), map[string]any{"pattern": "*.txt"})
if strings.Count(res.Output, ".txt") != 1 {
	t.Errorf("got %q, want one path", res.Output)
}
}
`
			}},
		},
		generate:  [][]string{{"go", "test", "./run", "-run", "TestFlagsReference", "-update"}},
		generated: []string{"docs/reference.md"},
		packages:  []string{"./config/", "./run/"},
	}
}

// toolChange adds a read-only built-in tool whose description quotes its limit, a setting
// of the run, with its test.
func toolChange() change {
	return change{
		checklist: "### Add a tool",
		edits: []edit{
			{"tools/walkthroughecho.go", func(*testing.T, string) string {
				return `package tools

import "context"

// walkthroughEchoArgs are the arguments of the WalkthroughEcho tool.
type walkthroughEchoArgs struct {
Text string ` + "`json:\"text\" description:\"the text to send back\"`" + `
}

// NewWalkthroughEcho returns the WalkthroughEcho tool, which sends its text back.
func NewWalkthroughEcho(env Env) Tool {
limit := env.settings().WalkthroughEchoMax
return New("WalkthroughEcho", env.settings().Quote("Send the text back, cut to its first {walkthrough-echo-max} characters."), Facts{ReadOnly: true},
	func(_ context.Context, in walkthroughEchoArgs) (Result, error) {
		r := []rune(in.Text)
		return Text(string(r[:min(len(r), limit)])), nil
	})
}
`
			}},
			{"tools/settings.go", func(t *testing.T, s string) string {
				return insertBefore(t, s, "\tShellOutputBytes int ",
					"\tWalkthroughEchoMax int `name:\"walkthrough-echo-max\" placeholder:\"N\" default:\"100\" help:\"Most characters WalkthroughEcho sends back.\"`\n")
			}},
			{"tools/builtin.go", func(t *testing.T, s string) string {
				return insertBefore(t, s, "\t{make: NewAgent, ", "\t{make: NewWalkthroughEcho},\n")
			}},
			{"docs/how-it-works.md", func(t *testing.T, s string) string {
				return insertBefore(t, s, "  Shell, TaskList, TaskOutput and TaskStop", "  WalkthroughEcho,\n")
			}},
			{"tools/walkthroughecho_test.go", func(*testing.T, string) string {
				return `package tools

import (
"strings"
"testing"
)

func TestWalkthroughEcho(t *testing.T) {
tool := NewWalkthroughEcho(Env{Settings: Settings{WalkthroughEchoMax: 3}})
if !strings.Contains(tool.Description(), "first 3 characters") {
	t.Errorf("description %q does not quote the limit", tool.Description())
}
if res := runSearchTool(t, tool, map[string]any{"text": "hello"}); res.IsError || res.Output != "hel" {
	t.Errorf("got %+v, want hel", res)
}
}
`
			}},
		},
		generate: [][]string{{"go", "test", "./tools", "./run", "-run", "TestBuiltinSchemasGolden|TestRequestBodiesUnchanged|TestFlagsReference", "-update"}},
		generated: []string{"tools/schemas.txt", "run/testdata/requests/default-tool-step.json",
			"run/testdata/requests/okabe.json", "run/testdata/requests/subagent.json", "docs/reference.md"},
		packages: []string{"./tools/", "./agentspec/", "./run/"},
	}
}

// wireChange adds a wire protocol: its package (the walkwire protocol's client, reader and
// test, kept in testdata/walkthrough/wire), its row in the protocols' table and its dialect
// of the scripted server. The tests of run/ that run every feature on every protocol then
// run it too.
func wireChange() change {
	source := func(name string) func(*testing.T, string) string {
		return func(t *testing.T, _ string) string {
			b, err := os.ReadFile(filepath.Join("testdata", "walkthrough", "wire", name))
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
	}
	return change{
		checklist: "### Add a wire protocol",
		edits: []edit{
			{"model/walkwire/client.go", source("client.go")},
			{"model/walkwire/reader.go", source("reader.go")},
			{"model/walkwire/client_test.go", source("client_test.go")},
			{"model/protocols/protocols.go", func(t *testing.T, s string) string {
				s = insertBefore(t, s, "\t\"github.com/kimi-run/kimi-run/model/responses\"", "\t\"github.com/kimi-run/kimi-run/model/walkwire\"\n")
				return insertBefore(t, s, "// google_genai is Kimi CLI's older name", `Name:  "walkwire",
Types: map[string]string{"walkwire": "walkwire"},
New:   func(cfg model.Config) model.Model { return walkwire.New(cfg) },
Read:  cassette.ReadChat,
Path:  "/v1/walkwire",
},
{
`)
			}},
			{"internal/scripted/walkwire.go", source("dialect.go")},
			{"internal/scripted/server.go", func(t *testing.T, s string) string {
				return strings.Replace(s, "geminiDialect}", "geminiDialect, walkwireDialect}", 1)
			}},
			{"docs/providers.md", func(t *testing.T, s string) string {
				return insertBefore(t, s, "| `anthropic` | Anthropic Messages API", "| `walkwire` | the walkthrough's protocol: `POST {base_url}/walkwire`, flat events | `api_key`, `base_url` | `reasoning_content` sent back |\n")
			}},
		},
		packages: []string{"./model/cassette/", "./config/", "./run/"},
	}
}

// walk makes the change in a scratch copy and checks what it took.
func (c change) walk(t *testing.T) {
	dir := scratchCopy(t)
	before := fileHashes(t, dir)
	var byHand []string
	for _, e := range c.edits {
		p := filepath.Join(dir, filepath.FromSlash(e.file))
		old, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(e.do(t, string(old))), 0o644); err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(e.file, ".go") {
			runIn(t, dir, "gofmt", "-w", e.file) // as the newcomer's editor does
		}
		byHand = append(byHand, e.file)
	}
	for _, cmd := range c.generate {
		runIn(t, dir, cmd[0], cmd[1:]...)
	}
	runIn(t, dir, "go", "build", "./...")
	runIn(t, dir, "go", "vet", "./...")
	if out := runIn(t, dir, "gofmt", "-l", "."); strings.TrimSpace(out) != "" {
		t.Errorf("gofmt would change:\n%s", out)
	}
	pkgs := slices.Clone(c.packages)
	for _, f := range byHand {
		if d := "./" + path.Dir(f) + "/"; strings.HasSuffix(f, ".go") && !slices.Contains(pkgs, d) {
			pkgs = append(pkgs, d)
		}
	}
	runIn(t, dir, "go", append([]string{"test", "-count=1"}, pkgs...)...)

	changed := changedFiles(t, dir, before)
	var counted []string
	for _, f := range changed {
		switch {
		case slices.Contains(c.generated, f):
		case !slices.Contains(byHand, f):
			t.Errorf("%s changed, though neither the checklist's edits nor its commands touch it", f)
		case !userDoc(f) && !strings.HasSuffix(f, "_test.go") && before[f] != ([32]byte{}):
			counted = append(counted, f) // not the docs, a test or the change's own new file
		}
	}
	t.Logf("by hand: %v; regenerated: %v", byHand, intersect(changed, c.generated))
	if len(counted) > 3 || len(c.generate) > 1 {
		t.Errorf("%d files touched by hand besides the change's own files, its tests and the user docs, and %d regeneration commands; want at most 3 and 1: %v", len(counted), len(c.generate), counted)
	}
	section := checklist(t, dir, c.checklist)
	for _, f := range byHand {
		if !named(section, f) {
			t.Errorf("%q does not name %s, which the change touched", c.checklist, f)
		}
	}
}

// scratchCopy copies the files git knows of (tracked, or new and not ignored) into a
// temporary directory.
func scratchCopy(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	dir := t.TempDir()
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		b, err := os.ReadFile(f)
		if os.IsNotExist(err) {
			continue // deleted in the work tree
		} else if err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// fileHashes maps each file under dir (slash-separated, relative) to its content's hash.
func fileHashes(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	m := map[string][32]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		m[filepath.ToSlash(rel)] = sha256.Sum256(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// changedFiles lists the files added, changed or removed since before, sorted.
func changedFiles(t *testing.T, dir string, before map[string][32]byte) []string {
	t.Helper()
	after := fileHashes(t, dir)
	var out []string
	for f, h := range after {
		if old, ok := before[f]; !ok || old != h {
			out = append(out, f)
		}
	}
	for f := range before {
		if _, ok := after[f]; !ok {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}

// runIn runs a command in dir and fails t with its output when it fails.
func runIn(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// insertBefore inserts text at the start of the one line of s that contains anchor.
func insertBefore(t *testing.T, s, anchor, text string) string {
	t.Helper()
	i := uniqueIndex(t, s, anchor)
	i = strings.LastIndexByte(s[:i], '\n') + 1
	return s[:i] + text + s[i:]
}

// replaceOnce replaces the one occurrence of old in s with new.
func replaceOnce(t *testing.T, s, old, new string) string {
	t.Helper()
	i := uniqueIndex(t, s, old)
	return s[:i] + new + s[i+len(old):]
}

// insertAfterLine inserts text after the one line of s that contains anchor.
func insertAfterLine(t *testing.T, s, anchor, text string) string {
	t.Helper()
	i := uniqueIndex(t, s, anchor)
	j := strings.IndexByte(s[i:], '\n')
	if j < 0 {
		return s + "\n" + text
	}
	return s[:i+j+1] + text + s[i+j+1:]
}

// uniqueIndex finds anchor in s, failing t unless it is there exactly once: the house has
// changed shape, and the walkthrough must be told where the checklist now points.
func uniqueIndex(t *testing.T, s, anchor string) int {
	t.Helper()
	if n := strings.Count(s, anchor); n != 1 {
		t.Fatalf("the walkthrough's anchor %q is found %d times, want once: update the walkthrough to the checklist", anchor, n)
	}
	return strings.Index(s, anchor)
}

// userDoc reports whether file is a user's document: README.md or a page of docs/ that the
// checklists call by its old name, the README.
func userDoc(file string) bool {
	return file == "README.md" || strings.HasPrefix(file, "docs/") && strings.HasSuffix(file, ".md")
}

// checklist returns the section of docs/design.md under heading, up to the next heading.
func checklist(t *testing.T, dir, heading string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "docs", "design.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("docs/design.md has no %q", heading)
	}
	if i := strings.Index(rest, "\n#"); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// named reports whether a checklist names file: by its path, its base name (quoted), a
// pattern with NAME in it (tools/NAME.go), or as a directory's file (agent/).
func named(section, file string) bool {
	if strings.Contains(section, file) || (userDoc(file) && strings.Contains(section, "README")) {
		return true
	}
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(section, -1) {
		tok := m[1]
		pattern := strings.ReplaceAll(tok, "NAME", "*")
		inDir, _ := path.Match(strings.TrimSuffix(pattern, "/"), path.Dir(file))
		if ok, _ := path.Match(pattern, file); ok || tok == path.Base(file) || (strings.HasSuffix(tok, "/") && (strings.HasPrefix(file, tok) || inDir)) {
			return true
		}
	}
	for _, dir := range regexp.MustCompile(`\b([a-z]+/)`).FindAllString(section, -1) {
		if path.Dir(file)+"/" == dir && !strings.Contains(path.Base(file), "_test") {
			return true
		}
	}
	return false
}

func intersect(a, b []string) []string {
	var out []string
	for _, x := range a {
		if slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}
