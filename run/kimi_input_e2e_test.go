package run_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// --input-format stream-json: Kimi CLI user messages on stdin, one turn each.

func answers(evs []map[string]any) []map[string]any {
	var out []map[string]any
	for _, e := range evs {
		if e["type"] == "answer" {
			out = append(out, e)
		}
	}
	return out
}

func warnings(evs []map[string]any) []string {
	var out []string
	for _, e := range evs {
		if e["type"] == "warning" {
			out = append(out, e["message"].(string))
		}
	}
	return out
}

func TestKimiInputThreeMessagesInOrder(t *testing.T) {
	t.Parallel()
	stdin := `{"role":"user","content":"one"}` + "\n" +
		`{"role":"user","content":[{"type":"text","text":"two"},{"type":"image_url","image_url":{"url":"x"}}]}` + "\n" +
		"\n" +
		`{"role": "user", "content": "three"}` + "\n"
	tests := []struct {
		name   string
		args   []string
		stdout func(t *testing.T, r result)
	}{
		{name: "kimi lines", args: []string{"--print", "--output-format", "stream-json"}, stdout: func(t *testing.T, r result) {
			want := `{"role":"assistant","content":"First answer."}` + "\n" +
				`{"role":"assistant","content":"Second answer."}` + "\n" +
				`{"role":"assistant","content":"Third answer."}` + "\n"
			if r.stdout != want {
				t.Errorf("stdout = %q, want %q", r.stdout, want)
			}
		}},
		{name: "events", args: []string{"--output-format", "stream-json"}, stdout: func(t *testing.T, r result) {
			res := lastResult(t, r)
			as := answers(events(t, r.stdout))
			if len(as) != 3 {
				t.Fatalf("%d answer events, want 3", len(as))
			}
			for i, want := range []struct {
				line float64
				text string
			}{{1, "First answer."}, {2, "Second answer."}, {4, "Third answer."}} {
				if as[i]["message"] != float64(i+1) || as[i]["line"] != want.line || as[i]["final_text"] != want.text {
					t.Errorf("answer %d = %v", i+1, as[i])
				}
			}
			if res["final_text"] != "Third answer." || res["steps"] != 3.0 {
				t.Errorf("result = %v", res)
			}
		}},
		{name: "text", args: nil, stdout: func(t *testing.T, r result) {
			if r.stdout != "First answer.\nSecond answer.\nThird answer.\n" {
				t.Errorf("stdout = %q", r.stdout)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.Text("First answer."), scripted.Text("Second answer."), scripted.Text("Third answer."))
			r := kimi(t, srv, invocation{stdin: ptr(stdin), args: append([]string{"--input-format", "stream-json"}, tt.args...)})
			if r.code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			tt.stdout(t, r)
			reqs := srv.Requests()
			if len(reqs) != 3 {
				t.Fatalf("%d requests, want 3", len(reqs))
			}
			// One conversation: each request carries the earlier messages and answers.
			for i, want := range [][]string{{"one"}, {"one", "two"}, {"one", "two", "three"}} {
				if got := userPrompts(srv, i); strings.Join(got, "|") != strings.Join(want, "|") {
					t.Errorf("request %d asks %q, want %q", i+1, got, want)
				}
			}
			var said []string
			for _, m := range reqs[2].Messages() {
				if m["role"] == "assistant" {
					said = append(said, m["content"].(string))
				}
			}
			if strings.Join(said, "|") != "First answer.|Second answer." {
				t.Errorf("the third request carries the answers %q", said)
			}
		})
	}
}

func TestKimiInputBadLines(t *testing.T) {
	t.Parallel()
	stdin := `{"role":"user","content":"one"}` + "\n" +
		"this is not json\n" +
		`{"role":"assistant","content":"I am not the user"}` + "\n" +
		`{"role":"user","content":"   "}` + "\n" +
		`{"role":"user","content":"two"}`
	t.Run("events", func(t *testing.T) {
		t.Parallel()
		srv := scripted.New(t, scripted.Text("First answer."), scripted.Text("Second answer."))
		r := kimi(t, srv, invocation{stdin: ptr(stdin), args: []string{"--input-format", "stream-json", "--output-format", "stream-json"}})
		if r.code != 2 {
			t.Fatalf("exit %d, want 2\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		res := lastResult(t, r)
		evs := events(t, r.stdout)
		as := answers(evs)
		if len(as) != 2 || as[0]["final_text"] != "First answer." || as[1]["final_text"] != "Second answer." || as[1]["line"] != 5.0 {
			t.Errorf("answers = %v", as)
		}
		ws := warnings(evs)
		if len(ws) != 3 || !strings.Contains(ws[0], "line 2") || !strings.Contains(ws[1], "line 3") || !strings.Contains(ws[2], "line 4") {
			t.Errorf("warnings = %q", ws)
		}
		if e, _ := res["error"].(map[string]any); e == nil || e["kind"] != "usage" || !strings.Contains(e["message"].(string), "3 stdin line") {
			t.Errorf("result = %v", res)
		}
		if res["final_text"] != "Second answer." {
			t.Errorf("final_text = %v", res["final_text"])
		}
		if len(srv.Requests()) != 2 {
			t.Errorf("%d requests", len(srv.Requests()))
		}
	})
	t.Run("kimi lines", func(t *testing.T) {
		t.Parallel()
		srv := scripted.New(t, scripted.Text("First answer."), scripted.Text("Second answer."))
		r := kimi(t, srv, invocation{stdin: ptr(stdin), args: []string{"--print", "--input-format", "stream-json", "--output-format", "stream-json"}})
		if r.code != 2 {
			t.Fatalf("exit %d, want 2\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		want := `{"role":"assistant","content":"First answer."}` + "\n" + `{"role":"assistant","content":"Second answer."}` + "\n"
		if r.stdout != want {
			t.Errorf("stdout = %q", r.stdout)
		}
		for _, w := range []string{"line 2", "line 3", "line 4", "skipped"} {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
			}
		}
	})
}

func TestKimiInputStopsAtAFailedTurn(t *testing.T) {
	t.Parallel()
	stdin := `{"role":"user","content":"one"}` + "\n" + `{"role":"user","content":"two"}` + "\n" + `{"role":"user","content":"three"}` + "\n"
	srv := scripted.New(t, scripted.Text("First answer."), scripted.Status(401, scripted.ErrorBody("invalid_authentication_error", "key revoked")))
	r := kimi(t, srv, invocation{stdin: ptr(stdin), args: []string{"--input-format", "stream-json", "--output-format", "stream-json"}})
	if r.code != 5 {
		t.Fatalf("exit %d, want 5\n%s", r.code, r.stderr)
	}
	res := lastResult(t, r)
	if as := answers(events(t, r.stdout)); len(as) != 1 || res["terminal_reason"] != "auth" {
		t.Errorf("answers %v, result %v", as, res)
	}
	if len(srv.Requests()) != 2 {
		t.Errorf("%d requests: the third message must not be sent", len(srv.Requests()))
	}
}

func TestKimiInputWithPromptAndFinalOnly(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call("Shell", `{"command":"true"}`)),
		scripted.Text("Answer to the flag."),
		scripted.Text("Answer to stdin."),
	)
	r := kimi(t, srv, invocation{stdin: ptr(`{"role":"user","content":"from stdin"}` + "\n"),
		args: []string{"--print", "-c", "from the flag", "--input-format", "stream-json", "--output-format", "stream-json", "--final-message-only"}})
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	want := `{"role":"assistant","content":"Answer to the flag."}` + "\n" + `{"role":"assistant","content":"Answer to stdin."}` + "\n"
	if r.stdout != want {
		t.Errorf("stdout = %q, want %q", r.stdout, want)
	}
	if got := userPrompts(srv, 2); strings.Join(got, "|") != "from the flag|from stdin" {
		t.Errorf("user messages = %q", got)
	}
}

func TestKimiInputWithoutMessages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		stdin *string
		args  []string
		code  int
		want  string
	}{
		{name: "empty pipe", stdin: ptr(""), code: 2, want: "no user messages"},
		{name: "blank lines only", stdin: ptr("\n \n"), code: 2, want: "no user messages"},
		{name: "stdin not a pipe", stdin: nil, code: 2, want: "not a pipe"},
		{name: "prompt alone", stdin: nil, args: []string{"-p", "hello"}, code: 0},
		{name: "with --no-stdin", stdin: ptr(""), args: []string{"--no-stdin"}, code: 2, want: "--no-stdin"},
		{name: "with --flow", stdin: ptr(""), args: []string{"--flow", "x.mmd"}, code: 2, want: "--flow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.Text("Hi."))
			r := kimi(t, srv, invocation{stdin: tt.stdin, args: append([]string{"--input-format", "stream-json"}, tt.args...)})
			if r.code != tt.code || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("exit %d, want %d with %q on stderr:\n%s", r.code, tt.code, tt.want, r.stderr)
			}
			if tt.code == 0 && r.stdout != "Hi.\n" {
				t.Errorf("stdout = %q", r.stdout)
			}
			if tt.code != 0 && len(srv.Requests()) != 0 {
				t.Errorf("a usage error made %d model calls", len(srv.Requests()))
			}
		})
	}
}

func TestKimiInputRalphPerMessage(t *testing.T) {
	t.Parallel()
	stdin := `{"role":"user","content":"fix a"}` + "\n" + `{"role":"user","content":"fix b"}` + "\n"
	srv := scripted.New(t,
		scripted.Text("a fixed"), scripted.Text("a done <choice>STOP</choice>"),
		scripted.Text("b fixed"), scripted.Text("b done <choice>STOP</choice>"),
	)
	r := kimi(t, srv, invocation{stdin: ptr(stdin), args: []string{"--input-format", "stream-json", "--output-format", "stream-json", "--max-ralph-iterations", "3"}})
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	res := lastResult(t, r)
	as := answers(events(t, r.stdout))
	if len(as) != 2 || as[0]["final_text"] != "a done" || as[1]["final_text"] != "b done" {
		t.Errorf("answers = %v", as)
	}
	if res["iterations"] != 4.0 || res["terminal_reason"] != "stop" {
		t.Errorf("result = %v", res)
	}
	if got := userPrompts(srv, 2); len(got) < 3 || !strings.Contains(got[len(got)-1], "fix b") {
		t.Errorf("the second message's loop did not continue the conversation: %q", got)
	}
}

// TestKimiInputAnswersBeforeStdinCloses drives a conversation the way a tool in front of
// kimi-run would: each answer comes out before the next message is written, and a signal
// ends a run that waits for more input with a result line.
func TestKimiInputAnswersBeforeStdinCloses(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("signals")
	}
	srv := scripted.New(t, scripted.Text("First answer."), scripted.Text("Second answer."))
	cmd := exec.Command(binary, "--no-session", "--input-format", "stream-json", "--output-format", "stream-json", "-w", t.TempDir())
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "KIMI_API_KEY=" + testKey,
		"KIMI_MODEL_NAME=m", "KIMI_BASE_URL=" + srv.URL()}
	cmd.Env = append(cmd.Env, coverEnv()...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	var lines []string
	// next reads events up to the next one of type typ.
	next := func(typ string) map[string]any {
		t.Helper()
		for sc.Scan() {
			lines = append(lines, sc.Text())
			var e map[string]any
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				t.Fatalf("bad line %q", sc.Text())
			}
			if e["type"] == typ {
				return e
			}
		}
		t.Fatalf("stdout ended before a %s event:\n%s", typ, strings.Join(lines, "\n"))
		return nil
	}
	io.WriteString(stdin, `{"role":"user","content":"one"}`+"\n")
	if a := next("answer"); a["final_text"] != "First answer." {
		t.Errorf("first answer = %v", a)
	}
	io.WriteString(stdin, `{"role":"user","content":"two"}`+"\n")
	if a := next("answer"); a["final_text"] != "Second answer." {
		t.Errorf("second answer = %v", a)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	res := next("result")
	if res["terminal_reason"] != "cancelled" || res["exit_code"] != 143.0 {
		t.Errorf("result = %v", res)
	}
	err = cmd.Wait()
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != 143 {
		t.Errorf("exit: %v", err)
	}
}
