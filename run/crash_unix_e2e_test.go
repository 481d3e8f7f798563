//go:build unix

package run_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// The tests of this file hold the README's "exactly once" promise (issue 25 #1): a run killed
// at any moment and resumed with the same --session and prompt never runs a finished command
// a second time, and runs an interrupted one at most once. Each command appends its own line
// to side.txt, so the file counts how often each one ran.

// crashCall is one Shell call of a crashPlan.
type crashCall struct {
	id      string // the tool call id, unique in the plan
	line    string // what the command appends to side.txt
	command string
}

// crashPlan is the work of a model that reads where it got from the conversation it is sent:
// it answers with the step after the last one whose tool calls the conversation holds, and
// with a final answer once every step is there. So a resumed run gets the step after the
// last one its session saved, and a session that lost a step gets that step again (and its
// command runs twice): the failure the tests look for.
type crashPlan struct {
	steps [][]crashCall
	// subagent, when set, is the one step that is an Agent call (its task's commands are
	// subagent).
	agentStep int
	subagent  []crashCall
}

const crashAnswer = "every step is done"

// subagentTask is the prompt of the Agent call of a crashPlan; the model recognises a
// subagent's conversation by it.
const subagentTask = "run the sub-task's commands"

// answer is the scripted model's reply to one request.
func (p *crashPlan) answer(req scripted.Request) scripted.Response {
	msgs := req.Messages()
	steps, call := p.steps, func(k int, c crashCall) scripted.Part {
		if k == p.agentStep && p.subagent != nil {
			return scripted.CallID(c.id, "Agent", fmt.Sprintf(`{"description":"sub-task","prompt":%q}`, subagentTask))
		}
		return scripted.CallID(c.id, "Shell", fmt.Sprintf(`{"command":%q}`, c.command))
	}
	if isSubagent(msgs) {
		// The subagent's steps are one call each.
		steps = nil
		for _, c := range p.subagent {
			steps = append(steps, []crashCall{c})
		}
		call = func(_ int, c crashCall) scripted.Part {
			return scripted.CallID(c.id, "Shell", fmt.Sprintf(`{"command":%q}`, c.command))
		}
	}
	done := 0
	for _, m := range msgs {
		calls, _ := m["tool_calls"].([]any)
		for _, c := range calls {
			id, _ := c.(map[string]any)["id"].(string)
			for k, step := range steps {
				for _, sc := range step {
					if sc.id == id {
						done = max(done, k+1)
					}
				}
			}
		}
	}
	if done == len(steps) {
		return scripted.Text(crashAnswer)
	}
	next := done + 1
	parts := []scripted.Part{scripted.Say(fmt.Sprintf("Step %d.", next))}
	for _, c := range steps[next-1] {
		parts = append(parts, call(next, c))
	}
	return scripted.Reply(parts...)
}

func isSubagent(msgs []map[string]any) bool {
	for _, m := range msgs {
		if m["role"] == "user" {
			return m["content"] == subagentTask
		}
	}
	return false
}

// calls lists every call of the plan, the subagent's included.
func (p *crashPlan) calls() []crashCall {
	var out []crashCall
	for k, step := range p.steps {
		if k+1 == p.agentStep && p.subagent != nil {
			continue
		}
		out = append(out, step...)
	}
	return append(out, p.subagent...)
}

// crashTurn is the command line of every attempt: the same session and prompt, as
// docs/ci.md's retried job.
func crashTurn(sessions string, extra ...string) []string {
	args := append([]string{"--session-dir", sessions, "--session", "job-1"}, extra...)
	return append(args, "-p", "run the plan, one step at a time")
}

// crashEnv is the environment kimi gives a run, for the tests that start the binary
// themselves.
func crashEnv(t *testing.T, srv *scripted.Server) []string {
	return append([]string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "KIMI_API_KEY=" + testKey,
		"KIMI_MODEL_NAME=test-model", "KIMI_RUN_NO_ROOT_WARNING=1", "KIMI_BASE_URL=" + srv.URL(),
	}, coverEnv()...)
}

// sideLines counts the lines of side.txt in work.
func sideLines(t *testing.T, work string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(work, "side.txt"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l != "" {
			n[l]++
		}
	}
	return n
}

// hasLine polls for a line in work's side.txt: the command that writes it is running.
func hasLine(work, line string) func() bool {
	return func() bool {
		b, _ := os.ReadFile(filepath.Join(work, "side.txt"))
		return strings.Contains(string(b), line+"\n")
	}
}

// resultsByCall maps each tool call id of a request's conversation to its result.
func resultsByCall(req scripted.Request) map[string]string {
	out := map[string]string{}
	for _, m := range req.MessagesOf("tool") {
		id, _ := m["tool_call_id"].(string)
		out[id], _ = m["content"].(string)
	}
	return out
}

// interrupted reports whether a tool result is the one a resumed run gives a call that was
// started and never saved a result.
func interrupted(result string) bool { return strings.Contains(result, "interrupted") }

// checkExactlyOnce checks side.txt and the conversation the model was last sent, once the
// plan is done: every call was made once; a call with a result other than "interrupted" or
// an error ran exactly once, any other at most once. It returns the results by call id.
func checkExactlyOnce(t *testing.T, plan *crashPlan, work string, srv *scripted.Server) map[string]string {
	t.Helper()
	// The last request of the main agent and of a subagent hold their whole conversations.
	var last, lastSub scripted.Request
	for _, r := range srv.Requests() {
		if isSubagent(r.Messages()) {
			lastSub = r
		} else {
			last = r
		}
	}
	results := resultsByCall(last)
	for id, res := range resultsByCall(lastSub) {
		results[id] = res
	}
	made := map[string]int{}
	for _, r := range []scripted.Request{last, lastSub} {
		for _, m := range r.MessagesOf("assistant") {
			calls, _ := m["tool_calls"].([]any)
			for _, c := range calls {
				id, _ := c.(map[string]any)["id"].(string)
				made[id]++
			}
		}
	}
	lines := sideLines(t, work)
	for _, c := range plan.calls() {
		res, ok := results[c.id]
		if made[c.id] > 1 {
			t.Errorf("call %s was made %d times in the conversation", c.id, made[c.id])
		}
		finished := ok && !interrupted(res) && !strings.HasPrefix(res, "ERROR")
		switch n := lines[c.line]; {
		case n > 1:
			t.Errorf("%q ran %d times (its result: %q)", c.line, n, res)
		case finished && n != 1:
			t.Errorf("%q ran %d times, but its result says it finished: %q", c.line, n, res)
		}
	}
	return results
}

// TestKilledDuringACommandDoesNotRunItAgain is the deterministic case of issue 25 #1: step 1
// appends a line and keeps running; the run is stopped once the line is there (a SIGKILL, a
// SIGHUP, a terminal that is gone and then a SIGHUP) and resumed with the same command line.
// The command must have run once, and the model must be told about it instead of being asked
// for the step again.
func TestKilledDuringACommandDoesNotRunItAgain(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"SIGKILL", "SIGHUP", "lost terminal"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			work, sessions := t.TempDir(), t.TempDir()
			// The command waits while there is no go-on file, which the test makes only for the
			// resume: a command run again would not hold the resume up.
			plan := &crashPlan{steps: [][]crashCall{
				{{id: "call_1", line: "ran", command: "echo ran >> side.txt; test -e go-on || sleep 60"}},
				{{id: "call_2", line: "step 2", command: "echo step 2 >> side.txt"}},
			}}
			srv := scripted.NewFunc(t, plan.answer)
			args := crashTurn(sessions, "--output-format", "stream-json")
			var first result
			switch how {
			case "lost terminal":
				first = runLostTerminal(t, srv, work, args, hasLine(work, "ran"))
			default:
				sig := map[string]syscall.Signal{"SIGKILL": syscall.SIGKILL, "SIGHUP": syscall.SIGHUP}[how]
				first = kimi(t, srv, invocation{dir: work, args: args, signal: sig, signalAfter: 1, signalOn: "tool_call", ready: hasLine(work, "ran")})
			}
			if first.code == 0 {
				t.Fatalf("the first attempt was not stopped\n%s", first.stderr)
			}
			if err := os.WriteFile(filepath.Join(work, "go-on"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			retry := kimi(t, srv, invocation{dir: work, args: args})
			if retry.code != 0 || lastResult(t, retry)["final_text"] != crashAnswer {
				t.Fatalf("retry exit %d\n%s\n%s", retry.code, retry.stdout, retry.stderr)
			}
			results := checkExactlyOnce(t, plan, work, srv)
			if n := sideLines(t, work)["ran"]; n != 1 {
				t.Errorf("the interrupted command ran %d times, want once", n)
			}
			if how == "SIGKILL" && !interrupted(results["call_1"]) {
				t.Errorf("the killed call's result is %q, want it answered as interrupted", results["call_1"])
			}
		})
	}
}

// TestKilledWithOneCallOfAReplyDone: a reply's two calls run at once; the fast one has
// finished (its tool_result is out) and the slow one still runs when the run is killed. The
// resume keeps the finished call's real result and answers the other as interrupted: each
// result is saved when its call ends, not when the whole reply's calls have.
func TestKilledWithOneCallOfAReplyDone(t *testing.T) {
	t.Parallel()
	work, sessions := t.TempDir(), t.TempDir()
	plan := &crashPlan{steps: [][]crashCall{{
		{id: "call_fast", line: "fast", command: "echo fast >> side.txt; echo fast done"},
		{id: "call_slow", line: "slow", command: "echo slow >> side.txt; test -e go-on || sleep 60"},
	}}}
	srv := scripted.NewFunc(t, plan.answer)
	args := crashTurn(sessions, "--output-format", "stream-json")
	first := kimi(t, srv, invocation{dir: work, args: args, signal: syscall.SIGKILL, signalAfter: 1, signalOn: "tool_result", ready: hasLine(work, "slow")})
	if first.code == 0 {
		t.Fatalf("the first attempt was not stopped\n%s", first.stderr)
	}
	if err := os.WriteFile(filepath.Join(work, "go-on"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	retry := kimi(t, srv, invocation{dir: work, args: args})
	if retry.code != 0 {
		t.Fatalf("retry exit %d\n%s", retry.code, retry.stderr)
	}
	results := checkExactlyOnce(t, plan, work, srv)
	if got := results["call_fast"]; !strings.Contains(got, "fast done") {
		t.Errorf("the finished call's result is %q, want its output", got)
	}
	if got := results["call_slow"]; !interrupted(got) {
		t.Errorf("the running call's result is %q, want interrupted", got)
	}
}

// TestKilledInASubagentDoesNotRunItAgain: the command that runs at the kill is a subagent's.
// The resume must not start the subagent's work again, and the Agent call's result tells the
// model what the subagent had started.
func TestKilledInASubagentDoesNotRunItAgain(t *testing.T) {
	t.Parallel()
	work, sessions := t.TempDir(), t.TempDir()
	plan := &crashPlan{
		steps:     [][]crashCall{{{id: "call_agent"}}},
		agentStep: 1,
		subagent: []crashCall{
			{id: "call_sub_1", line: "sub 1", command: "echo sub 1 >> side.txt"},
			{id: "call_sub_2", line: "sub 2", command: "echo sub 2 >> side.txt; test -e go-on || sleep 60"},
		},
	}
	srv := scripted.NewFunc(t, plan.answer)
	args := crashTurn(sessions, "--output-format", "stream-json")
	first := kimi(t, srv, invocation{dir: work, args: args, signal: syscall.SIGKILL, signalAfter: 1, signalOn: "tool_call", ready: hasLine(work, "sub 2")})
	if first.code == 0 {
		t.Fatalf("the first attempt was not stopped\n%s", first.stderr)
	}
	if err := os.WriteFile(filepath.Join(work, "go-on"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	retry := kimi(t, srv, invocation{dir: work, args: args})
	if retry.code != 0 {
		t.Fatalf("retry exit %d\n%s", retry.code, retry.stderr)
	}
	checkExactlyOnce(t, plan, work, srv)
	if n := sideLines(t, work); n["sub 1"] != 1 || n["sub 2"] != 1 {
		t.Errorf("side.txt counts %v, want each subagent command once", n)
	}
}

// runLostTerminal runs kimi-run with stdout and stderr on pipes, and once ready holds closes
// their read ends (the terminal is gone: every write fails) and sends SIGHUP, as a closed
// ssh session does.
func runLostTerminal(t *testing.T, srv *scripted.Server, work string, args []string, ready func() bool) result {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"-w", work}, args...)...)
	cmd.Env = crashEnv(t, srv)
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = outW, outW
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	outW.Close()
	var mu sync.Mutex
	var seen strings.Builder
	drained := make(chan struct{})
	stop := make(chan struct{})
	go func() {
		// Read until told to stop: a terminal shows what comes until it goes away.
		defer close(drained)
		buf := make([]byte, 4096)
		for {
			select {
			case <-stop:
				return
			default:
			}
			n, err := outR.Read(buf)
			mu.Lock()
			seen.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	deadline := time.Now().Add(time.Minute)
	for !ready() {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the run never got to the point under test")
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(stop)
	outR.Close()
	cmd.Process.Signal(syscall.SIGHUP)
	code := exitOf(t, cmd.Wait())
	<-drained
	mu.Lock()
	defer mu.Unlock()
	return result{stdout: seen.String(), code: code}
}

// TestCrashAtRandomMoments is the crash test of issue 25 #1 run as the world runs it: a plan of
// steps (some slow, some with two calls at once, one through a subagent) is run, killed after
// a random delay (SIGKILL, or SIGHUP one time in three), and resumed with the same command
// line until it finishes; then every finished command must have run exactly once and an
// interrupted one at most once. It runs only when KIMI_RUN_CRASH_KILLS asks for a number of
// kills (at least 60 for the figure); KIMI_RUN_CRASH_SEED repeats a run's random
// choices (the seed is logged).
func TestCrashAtRandomMoments(t *testing.T) {
	kills, _ := strconv.Atoi(os.Getenv("KIMI_RUN_CRASH_KILLS"))
	if kills <= 0 {
		t.Skip("set KIMI_RUN_CRASH_KILLS=60 to kill runs at random moments")
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("KIMI_RUN_CRASH_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("KIMI_RUN_CRASH_SEED=%d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	var total, sighups, cut, trials int
	for trial := 1; total < kills; trial++ {
		killed, hups, interrupts := crashTrial(t, trial, rand.New(rand.NewPCG(rng.Uint64(), uint64(trial))))
		total, sighups, cut, trials = total+killed, sighups+hups, cut+interrupts, trial
		if t.Failed() {
			t.Fatalf("trial %d failed after %d kills in all", trial, total)
		}
	}
	t.Logf("%d kills (%d of them SIGHUP) in %d runs of the plan, %d calls answered as interrupted: no finished command ran twice",
		total, sighups, trials, cut)
}

// crashPlanOf is the plan of the random crash test: twelve steps, every third one slow, every
// fourth two calls at once (one slow), step 6 a subagent with two commands.
func crashPlanOf() *crashPlan {
	p := &crashPlan{agentStep: 6}
	for k := 1; k <= 12; k++ {
		line := fmt.Sprintf("step %d", k)
		switch {
		case k == p.agentStep:
			p.steps = append(p.steps, []crashCall{{id: "call_6_agent"}})
			p.subagent = []crashCall{
				{id: "call_6_sub1", line: "step 6 sub 1", command: "echo step 6 sub 1 >> side.txt"},
				{id: "call_6_sub2", line: "step 6 sub 2", command: "echo step 6 sub 2 >> side.txt; sleep 0.2"},
			}
		case k%4 == 0:
			p.steps = append(p.steps, []crashCall{
				{id: fmt.Sprintf("call_%d_a", k), line: line + " a", command: "echo " + line + " a >> side.txt"},
				{id: fmt.Sprintf("call_%d_b", k), line: line + " b", command: "sleep 0.1; echo " + line + " b >> side.txt; sleep 0.1"},
			})
		case k%3 == 0:
			p.steps = append(p.steps, []crashCall{{id: fmt.Sprintf("call_%d", k), line: line, command: "echo " + line + " >> side.txt; sleep 0.3"}})
		default:
			p.steps = append(p.steps, []crashCall{{id: fmt.Sprintf("call_%d", k), line: line, command: "echo " + line + " >> side.txt"}})
		}
	}
	return p
}

// crashTrial runs the plan to its end through kills at random moments and checks it; it
// returns how many attempts were killed, how many of those by SIGHUP, and how many calls
// were answered as interrupted (kills that came while a call ran).
func crashTrial(t *testing.T, trial int, rng *rand.Rand) (kills, sighups, interrupts int) {
	t.Helper()
	work, sessions := t.TempDir(), t.TempDir()
	plan := crashPlanOf()
	srv := scripted.NewFunc(t, plan.answer)
	srv.ClientsMayDie() // a kill may land while a request's body is being written
	args := append([]string{"-w", work, "--retry-base-delay", "0"}, crashTurn(sessions, "--output-format", "stream-json")...)
	env := crashEnv(t, srv)
	for attempt := 1; ; attempt++ {
		if attempt > 60 {
			t.Fatalf("trial %d: no attempt finished in 60", trial)
		}
		sig := syscall.SIGKILL
		if rng.IntN(3) == 0 {
			sig = syscall.SIGHUP
		}
		// Most of a run's life is its steps; a delay up to about its length lands anywhere in
		// it, from the session's creation to the final answer.
		delay := time.Duration(rng.Int64N(int64(1500 * time.Millisecond)))
		cmd := exec.Command(binary, args...)
		cmd.Env = env
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		timer := time.AfterFunc(delay, func() { cmd.Process.Signal(sig) })
		err := cmd.Wait()
		if timer.Stop() {
			// Finished before the kill.
			if code := exitOf(t, err); code != 0 {
				t.Fatalf("trial %d attempt %d: exit %d\n%s", trial, attempt, code, errb.String())
			}
			break
		}
		code := exitOf(t, err)
		if code == 0 {
			break // finished just as the signal came
		}
		if code != -1 && code != 129 {
			t.Fatalf("trial %d attempt %d (%v after %v): exit %d\n%s", trial, attempt, sig, delay, code, errb.String())
		}
		kills++
		if sig == syscall.SIGHUP {
			sighups++
		}
	}
	for _, res := range checkExactlyOnce(t, plan, work, srv) {
		if interrupted(res) {
			interrupts++
		}
	}
	if t.Failed() {
		b, _ := os.ReadFile(filepath.Join(sessions, "job-1", "context.jsonl"))
		t.Logf("trial %d: side.txt %v\ncontext.jsonl:\n%s", trial, sideLines(t, work), b)
	}
	return kills, sighups, interrupts
}

// TestCIRecipeResumesWithoutRedoing runs docs/ci.md's retried-job command line as written (the
// GitLab one, through sh), kills it while its first command runs, as an evicted pod is, and
// runs the same line again, as the scheduler's retry does: the retry finishes the job and the
// command that ran at the kill did not run again.
func TestCIRecipeResumesWithoutRedoing(t *testing.T) {
	t.Parallel()
	line := ciDocLine(t, "kimi-run --session-dir \"$SESSIONS\"", "# GitLab")
	work, sessions := t.TempDir(), t.TempDir()
	plan := &crashPlan{steps: [][]crashCall{
		{{id: "call_1", line: "build", command: "echo build >> side.txt; test -e go-on || sleep 60"}},
		{{id: "call_2", line: "test", command: "echo test >> side.txt"}},
	}}
	srv := scripted.NewFunc(t, plan.answer)
	attempt := func(kill bool) result {
		cmd := exec.Command("sh", "-c", "exec "+line)
		cmd.Dir = work
		cmd.Env = append(crashEnv(t, srv), "PATH="+filepath.Dir(binary)+string(os.PathListSeparator)+os.Getenv("PATH"),
			"SESSIONS="+sessions, "PACKAGE=parser", "CI_PIPELINE_ID=4711")
		if !kill {
			return runCmd(t, cmd)
		}
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			ready := hasLine(work, "build")
			for deadline := time.Now().Add(time.Minute); !ready() && time.Now().Before(deadline); {
				time.Sleep(10 * time.Millisecond)
			}
			cmd.Process.Kill()
		}()
		code := exitOf(t, cmd.Wait())
		<-done
		return result{stdout: out.String(), stderr: errb.String(), code: code}
	}
	if r := attempt(true); r.code == 0 {
		t.Fatalf("the first attempt was not killed\n%s", r.stderr)
	}
	if err := os.WriteFile(filepath.Join(work, "go-on"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := attempt(false); r.code != 0 || strings.TrimSpace(r.stdout) != crashAnswer {
		t.Fatalf("the retry: exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	checkExactlyOnce(t, plan, work, srv)
	if n := sideLines(t, work); n["build"] != 1 || n["test"] != 1 {
		t.Errorf("side.txt counts %v, want each command once", n)
	}
}

// ciDocLine returns the line of docs/ci.md that starts with prefix and holds mark, without
// its trailing comment.
func ciDocLine(t *testing.T, prefix, mark string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "docs", "ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(raw), "\n") {
		if strings.HasPrefix(line, prefix) && strings.Contains(line, mark) {
			line, _, _ = strings.Cut(line, " #")
			return strings.TrimSpace(line)
		}
	}
	t.Fatalf("docs/ci.md has no line starting %q with %q", prefix, mark)
	return ""
}
