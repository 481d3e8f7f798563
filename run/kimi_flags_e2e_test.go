package run_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// Kimi CLI's flag names, mapped onto kimi-run's.

func TestKimiFlagSynonyms(t *testing.T) {
	t.Parallel()
	toolForever := []scripted.Response{scripted.ToolCalls(scripted.Call("Shell", `{"command":"true"}`)).Forever()}
	tests := []struct {
		name     string
		script   []scripted.Response
		args     []string
		code     int
		requests int
	}{
		{name: "max steps per turn", script: toolForever, args: []string{"--max-steps-per-turn", "2"}, code: 3, requests: 2},
		// Kimi counts attempts in total: 2 means one retry.
		{name: "max retries per step", script: []scripted.Response{scripted.Status(500, scripted.ErrorBody("server_error", "down")).Forever()},
			args: []string{"--max-retries-per-step", "2"}, code: 75, requests: 2},
		{name: "max retries per step 1 is no retry", script: []scripted.Response{scripted.Status(500, scripted.ErrorBody("server_error", "down")).Forever()},
			args: []string{"--max-retries-per-step", "1"}, code: 75, requests: 1},
		{name: "max ralph iterations", script: []scripted.Response{scripted.Text("a <choice>CONTINUE</choice>"), scripted.Text("b <choice>CONTINUE</choice>")},
			args: []string{"--max-ralph-iterations", "1"}, code: 4, requests: 2},
		{name: "max ralph iterations 0 is off", script: []scripted.Response{scripted.Text("done")},
			args: []string{"--max-ralph-iterations", "0"}, code: 0, requests: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, tt.script...)
			r := kimi(t, srv, invocation{args: append([]string{"--print", "-p", "go"}, tt.args...)})
			if r.code != tt.code || len(srv.Requests()) != tt.requests {
				t.Errorf("exit %d after %d requests, want %d after %d\n%s", r.code, len(srv.Requests()), tt.code, tt.requests, r.stderr)
			}
		})
	}
}

func TestKimiResume(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	dir := t.TempDir()
	srv := scripted.New(t, scripted.Text("The answer is 42."), scripted.Text("You asked about 42."))
	env := map[string]string{"HOME": home}
	if r := kimi(t, srv, invocation{dir: dir, env: env, args: []string{"--print", "-r", "nightly-1", "-p", "what is the answer?"}}); r.code != 0 {
		t.Fatalf("first run: exit %d: %s", r.code, r.stderr)
	}
	if r := kimi(t, srv, invocation{dir: dir, env: env, args: []string{"--print", "--resume", "nightly-1", "-p", "what did I ask?"}}); r.code != 0 {
		t.Fatalf("second run: exit %d: %s", r.code, r.stderr)
	}
	if got := userPrompts(srv, 1); strings.Join(got, "|") != "what is the answer?|what did I ask?" {
		t.Errorf("the resumed run sent %q", got)
	}
}

func TestKimiFlagErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "steps twice", args: []string{"--max-steps", "5", "--max-steps-per-turn", "5"}, want: "cannot be combined"},
		{name: "retries twice", args: []string{"--max-retries", "2", "--max-retries-per-step", "2"}, want: "cannot be combined"},
		{name: "ralph twice", args: []string{"--ralph", "1", "--max-ralph-iterations", "1"}, want: "cannot be combined"},
		{name: "session twice", args: []string{"--session", "a", "--resume", "a"}, want: "cannot be combined"},
		{name: "resume and continue", args: []string{"-r", "a", "--continue"}, want: "cannot be combined"},
		{name: "config twice", args: []string{"--config", "{}", "--config-file", "x.toml"}, want: "cannot be combined"},
		{name: "zero steps", args: []string{"--max-steps-per-turn", "0"}, want: "at least 1"},
		{name: "zero attempts", args: []string{"--max-retries-per-step", "0"}, want: "at least 1"},
		{name: "ralph below -1", args: []string{"--max-ralph-iterations", "-2"}, want: "--max-ralph-iterations must be -1"},
		{name: "empty -c", args: []string{"-c", ""}, want: "empty prompt"},
		{name: "blank -c", args: []string{"--command", "   "}, want: "empty prompt"},
		{name: "-c and -p", args: []string{"-c", "x", "-p", "y"}, want: "one way"},
		{name: "empty config", args: []string{"--config", " "}, want: "--config is empty"},
		{name: "config neither JSON nor TOML", args: []string{"--config", "api_key = sk-never-echo-this"}, want: "neither JSON"},
		{name: "final only in kimi-run events", args: []string{"--final-message-only", "--output-format", "stream-json"}, want: "needs --print"},
		{name: "unknown input format", args: []string{"--input-format", "yaml"}, want: "input-format"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.Text("never"))
			args := tt.args
			if !strings.Contains(strings.Join(args, " "), "-c") && !strings.Contains(strings.Join(args, " "), "--command") {
				args = append([]string{"-p", "task"}, args...)
			}
			r := kimi(t, srv, invocation{args: args, stdin: ptr("piped context\n")})
			if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("exit %d, want 2 with %q on stderr:\n%s", r.code, tt.want, r.stderr)
			}
			if strings.Contains(r.stderr, "sk-never-echo-this") {
				t.Errorf("stderr quotes the inline config: %s", r.stderr)
			}
			if len(srv.Requests()) != 0 {
				t.Errorf("a usage error made %d model calls", len(srv.Requests()))
			}
		})
	}
	// In Kimi's message format stdout holds messages only: a usage error leaves it empty.
	r := kimi(t, nil, invocation{args: []string{"--print", "--output-format", "stream-json", "-c", ""}})
	if r.code != 2 || r.stdout != "" {
		t.Errorf("kimi format usage error: exit %d, stdout %q", r.code, r.stdout)
	}
	r = kimi(t, nil, invocation{args: []string{"--print", "--output-format", "stream-json", "--no-such-flag"}})
	if r.code != 2 || r.stdout != "" {
		t.Errorf("kimi format unknown flag: exit %d, stdout %q", r.code, r.stdout)
	}
	// kimi-run's own stream still ends with a result line.
	r = kimi(t, nil, invocation{args: []string{"--output-format", "stream-json", "-c", ""}})
	if res := lastResult(t, r); r.code != 2 || res["exit_code"] != 2.0 {
		t.Errorf("stream-json usage error: exit %d, %v", r.code, res)
	}
}

func TestKimiFinalMessageOnlyStreamJSON(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t,
		scripted.Reply(scripted.Think("Look first."), scripted.Say("Let me look."), scripted.Call("Shell", `{"command":"true"}`)),
		scripted.Text("feat: add util module"),
	)
	r := kimi(t, srv, invocation{args: []string{"--print", "--output-format", "stream-json", "--final-message-only", "-p", "commit message"}})
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if want := `{"role":"assistant","content":"feat: add util module"}` + "\n"; r.stdout != want {
		t.Errorf("stdout = %q, want %q", r.stdout, want)
	}
}

func TestKimiFlagsInHelp(t *testing.T) {
	t.Parallel()
	r := kimi(t, nil, invocation{args: []string{"--help-all"}})
	if r.code != 0 {
		t.Fatalf("exit %d", r.code)
	}
	group := strings.Index(r.stdout, "Kimi CLI compatibility")
	own := strings.Index(r.stdout, "--max-steps=N")
	if group < 0 || own < 0 || own > group {
		t.Fatalf("kimi-run's flags should come first, then the Kimi CLI group:\n%s", r.stdout)
	}
	for _, f := range []string{"--print", "--yolo", "--command", "--final-message-only", "--max-steps-per-turn", "--max-retries-per-step",
		"--max-ralph-iterations", "--resume", "--config=", "--input-format"} {
		// The first mention of the flag itself, not of a longer one (--print-schema).
		pat := regexp.QuoteMeta(f)
		if !strings.HasSuffix(f, "=") {
			pat += `([^-\w]|$)`
		}
		loc := regexp.MustCompile(pat).FindStringIndex(r.stdout)
		if loc == nil || loc[0] < group {
			t.Errorf("%s is not listed in the Kimi CLI group", f)
		}
	}
}

func TestKimiFormatErrorsStayOffStdout(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t,
		scripted.Reply(scripted.Say("Looking."), scripted.Call("Shell", `{"command":"true"}`)),
		scripted.Status(401, scripted.ErrorBody("invalid_authentication_error", "key revoked")),
	)
	r := kimi(t, srv, invocation{args: []string{"--print", "--output-format", "stream-json", "-p", "go"}})
	if r.code != 5 {
		t.Fatalf("exit %d, want 5: %s", r.code, r.stderr)
	}
	lines := kimiLines(t, r.stdout) // fails on any line that is not a message
	if len(lines) != 2 || !strings.HasPrefix(lines[0], `{"role":"assistant","content":"Looking."`) || !strings.HasPrefix(lines[1], `{"role":"tool"`) {
		t.Errorf("stdout:\n%s", r.stdout)
	}
	if strings.Contains(r.stdout, "key revoked") || !strings.Contains(r.stderr, "key revoked") {
		t.Errorf("the error belongs on stderr:\nstdout: %s\nstderr: %s", r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "To resume this session: kimi-run -r ") {
		t.Errorf("no resume hint on stderr: %s", r.stderr)
	}
}
