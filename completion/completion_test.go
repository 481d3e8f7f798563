package completion_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/kimi-run/kimi-run/completion"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// cli has the shapes of flag a completion script must handle, with help texts written the
// ways kimi-run's are: values described after "value:", in parentheses, or as the clause
// a value starts, and one whose values come from elsewhere (Agent).
type cli struct {
	Prompt   string   `short:"p" placeholder:"TEXT" help:"The task."`
	Words    []string `arg:"" optional:"" name:"prompt" help:"The task as words."`
	File     string   `name:"prompt-file" placeholder:"FILE" help:"Read the task from FILE."`
	WorkDir  string   `name:"work-dir" short:"w" placeholder:"DIR" help:"Where the agent works."`
	Format   string   `name:"output-format" enum:"text,stream-json,json" default:"text" help:"text: the final answer on stdout, progress on stderr. stream-json: NDJSON events on stdout (schema v1). json: one JSON object on stdout when the run ends (the result event), progress on stderr."`
	Level    string   `name:"log-level" enum:"debug,info,warn,error" default:"info" help:"Detail of stderr in text mode: debug adds turns, usage and thinking notes; warn shows only warnings and errors; error only why a run failed."`
	Sandbox  string   `enum:"off,read-only,workspace-write" default:"off" help:"Confine Shell commands with Landlock: read-only (write only the run's temp dir) or workspace-write (also the work dir)."`
	Input    string   `name:"input-format" enum:"text,stream-json" default:"text" help:"text (default), or stream-json: read user messages from stdin, one JSON object per line."`
	Agent    string   `placeholder:"NAME" help:"Built-in agent: default, or okabe (default plus SendDMail)."`
	Thinking *bool    `negatable:"" help:"Ask the model to think."`
	Schema   string   `name:"json-schema" aliases:"output-schema" help:"The answer's JSON Schema."`
	AddDir   []string `name:"add-dir" placeholder:"DIR" help:"Another directory (repeatable)."`
	Secret   bool     `hidden:"" help:"Not offered."`
}

var agents = map[string][]string{"agent": {"default", "okabe"}}

func script(t *testing.T, shell string) string {
	t.Helper()
	var c cli
	p, err := kong.New(&c, kong.Name("kimi-run"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := completion.Write(&b, p.Model, shell, agents); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kimi-run."+shell)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRequest(t *testing.T) {
	for _, tt := range []struct {
		args  []string
		shell string
	}{
		{[]string{"completion", "bash"}, "bash"},
		{[]string{"completion", "fish"}, "fish"},
		{[]string{"completion", "zsh"}, "zsh"},
		{[]string{"completion", "powershell"}, ""},
		{[]string{"completion", "bash", "is", "broken"}, ""},
		{[]string{"completion"}, ""},
		{[]string{"-p", "completion", "bash"}, ""},
	} {
		shell, ok := completion.Request(tt.args)
		if shell != tt.shell || ok != (tt.shell != "") {
			t.Errorf("Request(%q) = %q, %v; want %q", tt.args, shell, ok, tt.shell)
		}
	}
}

// TestFishDescribesEachValue: every value has its own description, taken from what the
// help says of it (issue 29 #4: fish gave all three --output-format values the first's).
func TestFishDescribesEachValue(t *testing.T) {
	t.Parallel()
	fish := testkit.NeedShell(t, "fish")
	path := script(t, "fish")
	for _, tt := range []struct {
		line string
		want []string
	}{
		{"kimi-run --output-format ", []string{
			"json\tone JSON object on stdout when the run ends (the result event), progress on stderr",
			"stream-json\tNDJSON events on stdout (schema v1)",
			"text\tthe final answer on stdout, progress on stderr"}},
		{"kimi-run --log-level ", []string{
			"debug\tadds turns, usage and thinking notes", "error\tonly why a run failed",
			"info\tdefault", "warn\tshows only warnings and errors"}},
		{"kimi-run --sandbox ", []string{
			"off\tdefault", "read-only\twrite only the run's temp dir", "workspace-write\talso the work dir"}},
		{"kimi-run --input-format ", []string{
			"stream-json\tread user messages from stdin, one JSON object per line", "text\tdefault"}},
		{"kimi-run --agent ", []string{"default\tdefault", "okabe\tdefault plus SendDMail"}},
		{"kimi-run completion ", []string{"bash\tshell", "fish\tshell", "zsh\tshell"}},
		{"kimi-run com", []string{"completion\twrite a completion script for bash, zsh or fish"}},
		{"kimi-run ", nil},
		{"kimi-run --no-th", []string{"--no-thinking\tAsk the model to think"}},
		{"kimi-run --output-s", []string{"--output-schema\tThe answer's JSON Schema"}},
		{"kimi-run --sec", nil},
	} {
		if got := testkit.FishCompletions(t, fish, path, tt.line); !slices.Equal(got, tt.want) {
			t.Errorf("fish completes %q to\n%q\nwant\n%q", tt.line, got, tt.want)
		}
	}
}

func TestBash(t *testing.T) {
	t.Parallel()
	bash := testkit.NeedShell(t, "bash")
	path := script(t, "bash")
	for _, tt := range []struct {
		words []string
		want  []string
	}{
		{[]string{"kimi-run", "--output-format", ""}, []string{"json", "stream-json", "text"}},
		{[]string{"kimi-run", "--agent", "o"}, []string{"okabe"}},
		{[]string{"kimi-run", "completion", ""}, []string{"bash", "fish", "zsh"}},
		{[]string{"kimi-run", "com"}, []string{"completion"}},
		{[]string{"kimi-run", "-p", "x", "com"}, nil},
		{[]string{"kimi-run", "--no-th"}, []string{"--no-thinking"}},
		{[]string{"kimi-run", "--sec"}, nil},
		{[]string{"kimi-run", "-w", "/"}, dirsUnder(t, "/")},
	} {
		if got := testkit.BashCompletions(t, bash, path, "_kimi_run", tt.words...); !slices.Equal(got, tt.want) {
			t.Errorf("bash completes %q to %q, want %q", tt.words, got, tt.want)
		}
	}
}

// dirsUnder lists what bash's compgen -d offers for dir.
func dirsUnder(t *testing.T, dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if fi, err := os.Stat(filepath.Join(dir, e.Name())); err == nil && fi.IsDir() {
			out = append(out, dir+e.Name())
		}
	}
	slices.Sort(out)
	return out
}

func TestZsh(t *testing.T) {
	t.Parallel()
	zsh := testkit.NeedShell(t, "zsh")
	path := script(t, "zsh")
	tests := []struct {
		line string
		want []string
	}{
		{"kimi-run --output-format ", []string{"json", "stream-json", "text"}},
		{"kimi-run --agent ", []string{"default", "okabe"}},
		{"kimi-run completion ", []string{"bash", "fish", "zsh"}},
		{"kimi-run com", []string{"completion"}},
		{"kimi-run --no-th", []string{"--no-thinking"}},
		{"kimi-run --sec", nil},
	}
	var lines []string
	for _, tt := range tests {
		lines = append(lines, tt.line)
	}
	for i, got := range testkit.ZshCompletions(t, zsh, path, lines...) {
		if !slices.Equal(got, tests[i].want) {
			t.Errorf("zsh completes %q to %q, want %q", tests[i].line, got, tests[i].want)
		}
	}
	// The values' descriptions are the ones fish shows (checked above), in zsh's syntax.
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), `((text\:"the final answer on stdout, progress on stderr" stream-json\:"NDJSON events on stdout (schema v1)"`) {
		t.Errorf("zsh's --output-format values lack their descriptions:\n%s", b)
	}
}
