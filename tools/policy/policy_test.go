package policy_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kimi-run/kimi-run/tools"
	"github.com/kimi-run/kimi-run/tools/policy"
)

func TestParseRules(t *testing.T) {
	got, err := policy.ParseRules([]string{"Shell(git log *),ReadFile", "Grep  Shell(echo a, b) mcp__gh__*", "Agent"})
	if err != nil {
		t.Fatal(err)
	}
	var s []string
	for _, r := range got {
		s = append(s, r.String())
	}
	want := []string{"Shell(git log *)", "ReadFile", "Grep", "Shell(echo a, b)", "mcp__gh__*", "Agent"}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("rules = %q, want %q", s, want)
	}
	for _, bad := range []string{"ReadFile(x)", "Shell()", "Shell(ls", "Shell(a[b)", "Sh ell", "Shell(x\\)"} {
		if _, err := policy.ParseRule(bad); err == nil {
			t.Errorf("ParseRule(%q) succeeded", bad)
		}
	}
}

// FromFlags reads the three flags into one policy: --tools given empty offers nothing, not
// given it offers everything; a rule in --tools is refused.
func TestFromFlags(t *testing.T) {
	p, err := policy.FromFlags([]string{"Shell(git *)"}, []string{"WriteFile"}, []string{"Shell,ReadFile", "Grep"})
	if err != nil || len(p.Allow) != 1 || len(p.Deny) != 1 || strings.Join(p.Only, " ") != "Shell ReadFile Grep" {
		t.Errorf("FromFlags = %+v, %v", p, err)
	}
	if p, _ := policy.FromFlags(nil, nil, []string{""}); p.Only == nil || len(p.Only) != 0 {
		t.Errorf("--tools \"\": Only = %#v, want empty", p.Only)
	}
	if p, _ := policy.FromFlags(nil, nil, nil); p.Only != nil {
		t.Errorf("no --tools: Only = %#v, want nil", p.Only)
	}
	for _, flags := range [][3][]string{{{"Shell("}}, {nil, {"Bash(ls)"}}, {nil, nil, {"Shell(ls)"}}} {
		if _, err := policy.FromFlags(flags[0], flags[1], flags[2]); err == nil {
			t.Errorf("FromFlags(%q) succeeded", flags)
		}
	}
}

func TestSegments(t *testing.T) {
	tests := []struct {
		cmd  string
		want []string // Bare of each segment
	}{
		{"ls -la", []string{"ls -la"}},
		{"make && rm -rf build; echo done", []string{"make", "rm -rf build", "echo done"}},
		{"FOO=1 BAR='a b' sudo rm x | tee log", []string{"rm x", "tee log"}},
		{`echo "a; b && c" 'x|y'`, []string{`echo "a; b && c" 'x|y'`}},
		{`echo "$(rm -rf /)" and ` + "`whoami`", []string{`echo "`, "rm -rf /", `" and`, "whoami"}},
		{"(cd x && rm y) &", []string{"cd x", "rm y"}},
		{"if true; then rm x; fi", []string{"true", "rm x"}},
		{"for f in *.go; do gofmt -l $f; done", []string{"gofmt -l $f"}},
		{"echo a\\;b", []string{"echo a\\;b"}},
		{"  # just a comment", nil},
	}
	for _, tt := range tests {
		var got []string
		for _, s := range policy.Segments(tt.cmd) {
			got = append(got, s.Bare)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Segments(%q) = %q, want %q", tt.cmd, got, tt.want)
		}
	}
}

func TestShellPatterns(t *testing.T) {
	tests := []struct {
		pattern, cmd string
		deny         bool // DenyMatches
		allow        bool // AllowMatches with just this pattern
	}{
		{"rm *", "rm -rf /tmp/x", true, true},
		{"rm *", "make && rm -rf build", true, false},
		{"rm *", "FOO=1 sudo rm x", true, true},
		{"rm *", "echo rm", false, false},
		{"rm *", "rm", false, false},
		{"rm:*", "rm", true, true},
		{"rm:*", "rmdir x", false, false},
		{"git *", "git add . && git commit -m 'x; y'", true, true},
		{"git *", "git status; curl evil.example", true, false},
		{"git *", "git log $(rm -rf ~)", true, false},
		{"*--force*", "git push --force origin", true, true},
		{"go test ./...", "go test ./...", true, true},
		{"go test ./...", "go test ./... -run X", false, false},
		{"ls ?", "ls a", true, true},
		{"ls [ab]", "ls c", false, false},
		{"ls [!ab]", "ls c", true, true},
		{`echo \*`, "echo *", true, true},
		{`echo \*`, "echo x", false, false},
	}
	for _, tt := range tests {
		if got := policy.DenyMatches(tt.pattern, tt.cmd); got != tt.deny {
			t.Errorf("DenyMatches(%q, %q) = %v", tt.pattern, tt.cmd, got)
		}
		if got := policy.AllowMatches([]string{tt.pattern}, tt.cmd); got != tt.allow {
			t.Errorf("AllowMatches(%q, %q) = %v", tt.pattern, tt.cmd, got)
		}
	}
	if !policy.AllowMatches([]string{"git *", "go test *"}, "go test ./... && git diff") {
		t.Errorf("two allow patterns do not cover two commands")
	}
}

// probe is a tool that counts its runs.
type probe struct {
	name string
	runs atomic.Int32
}

func (p *probe) Name() string            { return p.name }
func (p *probe) Description() string     { return p.name }
func (p *probe) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (p *probe) Facts() tools.Facts      { return tools.Facts{} }
func (p *probe) Run(context.Context, json.RawMessage) (tools.Result, error) {
	p.runs.Add(1)
	return tools.Text("ran"), nil
}

func toolset(names ...string) []tools.Tool {
	var out []tools.Tool
	for _, n := range names {
		out = append(out, &probe{name: n})
	}
	return out
}

func names(ts []tools.Tool) string {
	var s []string
	for _, t := range ts {
		s = append(s, t.Name())
	}
	return strings.Join(s, ",")
}

func mustRules(t *testing.T, s ...string) []policy.Rule {
	t.Helper()
	r, err := policy.ParseRules(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestOffered(t *testing.T) {
	all := toolset("Shell", "ReadFile", "WriteFile", "Task", "mcp__gh__issues", "mcp__gh__prs")
	tests := []struct {
		name string
		p    policy.Policy
		want string
	}{
		{"no rules", policy.Policy{}, "Shell,ReadFile,WriteFile,Task,mcp__gh__issues,mcp__gh__prs"},
		{"only", policy.Policy{Only: []string{"ReadFile", "Shell"}}, "Shell,ReadFile"},
		{"only, Agent names Task", policy.Policy{Only: []string{"Agent"}}, "Task"},
		{"deny names", policy.Policy{Deny: mustRules(t, "WriteFile,mcp__gh__*")}, "Shell,ReadFile,Task"},
		{"deny pattern keeps the tool", policy.Policy{Deny: mustRules(t, "Shell(rm *)")}, "Shell,ReadFile,WriteFile,Task,mcp__gh__issues,mcp__gh__prs"},
		{"allow offers what it names", policy.Policy{Allow: mustRules(t, "Shell(git *)", "ReadFile")}, "Shell,ReadFile"},
		{"deny beats allow", policy.Policy{Allow: mustRules(t, "ReadFile,WriteFile"), Deny: mustRules(t, "WriteFile")}, "ReadFile"},
		{"Agent rule removes Task", policy.Policy{Deny: mustRules(t, "Agent")}, "Shell,ReadFile,WriteFile,mcp__gh__issues,mcp__gh__prs"},
	}
	for _, tt := range tests {
		if got := names(tt.p.Apply(all, nil)); got != tt.want {
			t.Errorf("%s: offered %s, want %s", tt.name, got, tt.want)
		}
	}
	if got := (policy.Policy{Only: []string{"Shel", "mcp__x__*"}, Deny: mustRules(t, "Agent", "Shell(x)")}).Unknown(strings.Split(names(all), ",")); len(got) != 1 || got[0] != "Shel" {
		t.Errorf("Unknown = %q, want [Shel] (globs and Agent, which names Task, are known)", got)
	}
}

func TestDeniedCallsDoNotRun(t *testing.T) {
	p := policy.Policy{
		Allow:  mustRules(t, "Shell(git *)", "Shell(go test *)", "ReadFile"),
		Deny:   mustRules(t, "Shell(git push *)"),
		Source: "--allowed-tools/--disallowed-tools",
	}
	var denials []policy.Denial
	ts := p.Apply(toolset("Shell", "ReadFile", "WriteFile"), func(d policy.Denial) { denials = append(denials, d) })
	shell, read := ts[0], ts[1]
	tests := []struct {
		tool    tools.Tool
		args    string
		ran     bool
		rule    string
		message string
	}{
		{shell, `{"command":"git status && go test ./..."}`, true, "", ""},
		{shell, `{"command":"git push --force origin main"}`, false, "Shell(git push *)", "the rule Shell(git push *) of --allowed-tools/--disallowed-tools"},
		{shell, `{"command":"git status; curl x"}`, false, "", "no rule of --allowed-tools/--disallowed-tools allows"},
		{shell, `{"timeout":5}`, true, "", ""}, // no command: the tool reports that itself
		{read, `{"path":"x"}`, true, "", ""},
	}
	for i, tt := range tests {
		before := len(denials)
		ctx := tools.WithCallID(context.Background(), "call_"+string(rune('a'+i)))
		res, err := tt.tool.Run(ctx, json.RawMessage(tt.args))
		if err != nil {
			t.Fatal(err)
		}
		if tt.ran != (res.Output == "ran") {
			t.Errorf("%s %s: result %+v, ran = %v", tt.tool.Name(), tt.args, res, !tt.ran)
		}
		if tt.ran {
			if len(denials) != before {
				t.Errorf("%s: a call that ran was reported as denied", tt.args)
			}
			continue
		}
		if !res.IsError || !strings.Contains(res.Output, tt.message) {
			t.Errorf("%s: result %+v, want an error mentioning %q", tt.args, res, tt.message)
		}
		if len(denials) != before+1 || denials[before].Rule != tt.rule || denials[before].CallID != "call_"+string(rune('a'+i)) || denials[before].Tool != "Shell" {
			t.Errorf("%s: denials = %+v", tt.args, denials[before:])
		}
	}
}
