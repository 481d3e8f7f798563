package run_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// The Action's additions of issue 19 #4, tested as the runner runs them: the scripts with
// a faked runner environment and a fake GitHub API on loopback.

// TestActionArgsForms: args as a JSON array, as one shell-quoted line (a single
// `--max-steps 30` used to be the case that failed) and one per line reach kimi-run as
// the same words; text and stream-json report the same tokens.
func TestActionArgsForms(t *testing.T) {
	t.Parallel()
	needBash(t, "jq", "xargs")
	casDir := filepath.Join(t.TempDir(), "my cassettes")
	os.MkdirAll(casDir, 0o755)
	cas := filepath.Join(casDir, "tour.jsonl")
	os.WriteFile(cas, repoFile(t, "testdata/cassettes/tour.jsonl"), 0o644)
	arr, _ := json.Marshal([]string{"--replay", cas, "--replay-speed", "0", "--max-steps", "30"})

	tokens := map[string]string{}
	for _, tc := range []struct{ name, args, format string }{
		{name: "JSON array", args: string(arr), format: "stream-json"},
		{name: "one shell-quoted line", args: `--replay "` + cas + `" --replay-speed 0 --max-steps 30`, format: "text"},
		{name: "one per line", args: "--replay\n" + cas + "\n--replay-speed\n0\n--max-steps\n30", format: "text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runActionScript(t, checkoutLike(t), map[string]string{
				"INPUT_PROMPT": "What is this project?", "INPUT_OUTPUT_FORMAT": tc.format, "INPUT_ARGS": tc.args,
			})
			if r.code != 0 {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			o := r.outputs
			if o["input-tokens"] == "" || o["output-tokens"] == "" || o["cached-tokens"] == "" {
				t.Fatalf("no token outputs: %v", o)
			}
			got := o["input-tokens"] + "/" + o["output-tokens"] + "/" + o["cached-tokens"]
			tokens[tc.name] = got
			want := fmt.Sprintf("- tokens: %s in (%s cached), %s out", o["input-tokens"], o["cached-tokens"], o["output-tokens"])
			if !strings.Contains(r.summary, want) {
				t.Errorf("the summary lacks %q:\n%s", want, r.summary)
			}
		})
	}
	if len(tokens) == 3 && (tokens["JSON array"] != tokens["one shell-quoted line"] || tokens["JSON array"] != tokens["one per line"]) {
		t.Errorf("the same replay reports different tokens: %v", tokens)
	}

	for _, bad := range []string{`["--max-steps", 30]`, `--prompt-file "unterminated`} {
		r := runActionScript(t, t.TempDir(), map[string]string{"INPUT_PROMPT": "x", "INPUT_ARGS": bad})
		if r.code != 2 || !strings.Contains(r.stderr, "::error title=kimi-run args::") {
			t.Errorf("args %s: exit %d, stderr %q: want a usage error before any run", bad, r.code, r.stderr)
		}
	}
}

// TestActionStructuredOutputAndCost: with --json-schema the matched JSON is an output, and
// with prices the cost is one, in both formats.
func TestActionStructuredOutputAndCost(t *testing.T) {
	t.Parallel()
	needBash(t, "jq", "xargs")
	for _, format := range []string{"text", "stream-json"} {
		t.Run(format, func(t *testing.T) {
			srv := scripted.New(t, scripted.Text(`{"verdict": "ok", "issues": []}`))
			r := runActionScript(t, t.TempDir(), map[string]string{
				"INPUT_PROMPT": "judge", "INPUT_OUTPUT_FORMAT": format, "INPUT_MODEL": "test-model",
				"INPUT_BASE_URL": srv.URL(), "INPUT_API_KEY": testKey,
				"INPUT_ARGS": `["--json-schema", "{\"type\":\"object\",\"required\":[\"verdict\"]}", "--price-input", "1", "--price-output", "2"]`,
			})
			if r.code != 0 {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			if got := r.outputs["structured-output"]; got != `{"verdict":"ok","issues":[]}` {
				t.Errorf("structured-output = %q", got)
			}
			if r.outputs["cost-usd"] == "" || !strings.Contains(r.summary, "- cost: $"+r.outputs["cost-usd"]) {
				t.Errorf("cost-usd %q, summary:\n%s", r.outputs["cost-usd"], r.summary)
			}
		})
	}
}

// installEnv runs scripts/action-install.sh with a runner environment and returns its
// combined output, outputs and error.
func installEnv(t *testing.T, env ...string) (string, map[string]string, error) {
	t.Helper()
	runner := t.TempDir()
	outputs := filepath.Join(runner, "output.txt")
	script, _ := filepath.Abs(filepath.Join("..", "scripts", "action-install.sh"))
	cmd := exec.Command("bash", script)
	arch := map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH]
	osName := map[string]string{"linux": "Linux", "darwin": "macOS"}[runtime.GOOS]
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + runner, "RUNNER_TEMP=" + runner,
		"GITHUB_OUTPUT=" + outputs, "RUNNER_OS=" + osName, "RUNNER_ARCH=" + arch,
		"KIMI_RUN_REPOSITORY=acme/kimi-run"}, env...)
	cmd.Env = append(cmd.Env, coverEnv()...)
	out, err := cmd.CombinedOutput()
	b, _ := os.ReadFile(outputs)
	return string(out), parseOutputs(string(b)), err
}

// TestActionInstallWithoutTheReleaseHost: a version in the runner's tool cache installs
// with no network; an unreachable host with the fallback on leaves "bin" empty (action.yml
// then builds from source) instead of failing, and a download fills the tool cache.
func TestActionInstallWithoutTheReleaseHost(t *testing.T) {
	t.Parallel()
	needBash(t, "curl", "tar")
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("no release for this platform")
	}
	// Port 1, where nothing listens: not the address of a closed test server, whose port the
	// next server of a parallel test may be given, to receive these requests (issue 28 #7).
	const dead = "http://127.0.0.1:1"
	// curl's retries of a refused connection wait 1+2+4 s per call; what is under test is
	// the fallback, so it gives up at once.
	offline := []string{"KIMI_RUN_GITHUB_URL=" + dead, "KIMI_RUN_API_URL=" + dead, "KIMI_RUN_CURL_RETRIES=0"}

	cache := t.TempDir()
	dir := filepath.Join(cache, "kimi-run", "1.2.3", runtime.GOARCH)
	os.MkdirAll(dir, 0o755)
	// Copied by cp, not written from here: a parallel test's fork could hold a file this
	// process writes open and make its exec fail with ETXTBSY.
	if out, err := exec.Command("cp", binary, filepath.Join(dir, "kimi-run")).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}

	out, o, err := installEnv(t, append(offline, "RUNNER_TOOL_CACHE="+cache, "KIMI_RUN_VERSION=v1.2.3")...)
	if err != nil || o["bin"] != filepath.Join(dir, "kimi-run") || o["version"] != binaryVersion(t) {
		t.Errorf("from the tool cache: %v, outputs %v\n%s", err, o, out)
	}
	if !strings.Contains(out, "from the runner's tool cache") {
		t.Errorf("the log does not say where kimi-run came from:\n%s", out)
	}

	for _, v := range []string{"latest", "v9.9.9"} {
		out, o, err = installEnv(t, append(offline, "RUNNER_TOOL_CACHE="+cache, "KIMI_RUN_VERSION="+v, "KIMI_RUN_FALLBACK=true")...)
		if err != nil || o["bin"] != "" || !strings.Contains(out, "building from source instead") {
			t.Errorf("version %s, host unreachable, fallback on: %v, outputs %v\n%s", v, err, o, out)
		}
		if _, _, err := installEnv(t, append(offline, "KIMI_RUN_VERSION="+v)...); err == nil {
			t.Errorf("version %s, host unreachable, fallback off: the install succeeded", v)
		}
	}
}

// fakeGitHub serves the parts of the REST API the gate and the comment use.
type fakeGitHub struct {
	mu          sync.Mutex
	permissions map[string]string
	comments    []map[string]any
	calls       []string
}

func (g *fakeGitHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.calls = append(g.calls, r.Method+" "+r.URL.Path)
	if r.Header.Get("Authorization") != "Bearer gh-token" {
		http.Error(w, "no token", http.StatusUnauthorized)
		return
	}
	path := r.URL.Path
	switch {
	case strings.HasPrefix(path, "/repos/acme/app/collaborators/") && strings.HasSuffix(path, "/permission"):
		user := strings.TrimSuffix(strings.TrimPrefix(path, "/repos/acme/app/collaborators/"), "/permission")
		p, ok := g.permissions[user]
		if !ok {
			http.Error(w, "not a collaborator", http.StatusNotFound)
			return
		}
		fmt.Fprintf(w, `{"permission": %q, "user": {"login": %q}}`, p, user)
	case path == "/repos/acme/app/issues/7/comments" && r.Method == http.MethodGet:
		json.NewEncoder(w).Encode(g.comments)
	case path == "/repos/acme/app/issues/7/comments" && r.Method == http.MethodPost:
		var c map[string]any
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &c)
		c["id"] = float64(100 + len(g.comments))
		g.comments = append(g.comments, c)
		json.NewEncoder(w).Encode(c)
	case strings.HasPrefix(path, "/repos/acme/app/issues/comments/") && r.Method == http.MethodPatch:
		var c map[string]any
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &c)
		id := strings.TrimPrefix(path, "/repos/acme/app/issues/comments/")
		for _, old := range g.comments {
			if fmt.Sprint(old["id"]) == id {
				old["body"] = c["body"]
				json.NewEncoder(w).Encode(old)
				return
			}
		}
		http.NotFound(w, r)
	default:
		http.NotFound(w, r)
	}
}

func runScript(t *testing.T, name string, env ...string) (string, map[string]string, error) {
	t.Helper()
	outputs := filepath.Join(t.TempDir(), "output.txt")
	script, _ := filepath.Abs(filepath.Join("..", "scripts", name))
	cmd := exec.Command("bash", script)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GITHUB_OUTPUT=" + outputs,
		"GITHUB_REPOSITORY=acme/app", "GITHUB_TOKEN=gh-token"}, env...)
	cmd.Env = append(cmd.Env, coverEnv()...)
	out, err := cmd.CombinedOutput()
	b, _ := os.ReadFile(outputs)
	return string(out), parseOutputs(string(b)), err
}

// TestActionGate: a run started by a comment needs write access or a place in
// allowed-users; other events pass without asking.
func TestActionGate(t *testing.T) {
	t.Parallel()
	needBash(t, "curl")
	gh := &fakeGitHub{permissions: map[string]string{"maintainer": "write", "owner": "admin", "stranger": "read"}}
	srv := httptest.NewServer(gh)
	defer srv.Close()
	tests := []struct {
		event, actor, allowed string
		ok                    bool
	}{
		{event: "pull_request", actor: "stranger", ok: true},
		{event: "push", actor: "anyone", ok: true},
		{event: "issue_comment", actor: "maintainer", ok: true},
		{event: "pull_request_review_comment", actor: "owner", ok: true},
		{event: "issue_comment", actor: "stranger", ok: false},
		{event: "issue_comment", actor: "nobody", ok: false},
		{event: "issue_comment", actor: "Stranger", allowed: "alice, stranger", ok: true},
		{event: "issues", actor: "renovate[bot]", ok: false},
		{event: "issues", actor: "renovate[bot]", allowed: "renovate[bot]", ok: true},
		{event: "issue_comment", actor: "nobody", allowed: "*", ok: true},
	}
	for _, tt := range tests {
		t.Run(tt.event+"_"+tt.actor+"_"+tt.allowed, func(t *testing.T) {
			out, _, err := runScript(t, "action-gate.sh", "GITHUB_API_URL="+srv.URL, "GITHUB_EVENT_NAME="+tt.event,
				"GITHUB_ACTOR="+tt.actor, "INPUT_ALLOWED_USERS="+tt.allowed)
			if tt.ok && err != nil {
				t.Errorf("refused: %v\n%s", err, out)
			}
			if !tt.ok && (err == nil || !strings.Contains(out, "::error title=kimi-run not allowed::")) {
				t.Errorf("allowed: %v\n%s", err, out)
			}
		})
	}
}

// TestActionStickyComment: the first run posts the answer on the pull request, a re-run
// edits that comment rather than adding one, another job keeps its own, and a failure says
// so in the same place.
func TestActionStickyComment(t *testing.T) {
	t.Parallel()
	needBash(t, "curl", "jq")
	gh := &fakeGitHub{comments: []map[string]any{{"id": float64(1), "body": "a person's comment"}}}
	srv := httptest.NewServer(gh)
	defer srv.Close()
	dir := t.TempDir()
	event := filepath.Join(dir, "event.json")
	os.WriteFile(event, []byte(`{"pull_request": {"number": 7}}`), 0o644)
	answer := filepath.Join(dir, "answer.md")

	post := func(job, text, code string) map[string]string {
		t.Helper()
		os.WriteFile(answer, []byte(text), 0o644)
		out, o, err := runScript(t, "action-comment.sh", "GITHUB_API_URL="+srv.URL, "GITHUB_EVENT_PATH="+event,
			"GITHUB_WORKFLOW=review", "GITHUB_JOB="+job, "GITHUB_RUN_ID=42", "RESULT_FILE="+answer, "EXIT_CODE="+code,
			"INPUT_TOKENS_IN=1200", "INPUT_TOKENS_OUT=80", "INPUT_COST_USD=0.0031")
		if err != nil || strings.Contains(out, "::warning") {
			t.Fatalf("%v\n%s", err, out)
		}
		return o
	}
	first := post("review", "Looks good.", "0")
	second := post("review", "Found a bug in parse.go:12.", "0")
	other := post("lint", "No lint issues.", "0")
	failed := post("review", "", "75")

	if first["comment-id"] == "" || second["comment-id"] != first["comment-id"] || failed["comment-id"] != first["comment-id"] {
		t.Errorf("comment ids %s, %s, %s: want one comment updated in place", first["comment-id"], second["comment-id"], failed["comment-id"])
	}
	if other["comment-id"] == first["comment-id"] {
		t.Errorf("another job's answer replaced the review")
	}
	if len(gh.comments) != 3 || gh.comments[0]["body"] != "a person's comment" {
		t.Fatalf("comments on the pull request: %v", gh.comments)
	}
	body := fmt.Sprint(gh.comments[1]["body"])
	for _, want := range []string{"<!-- kimi-run:review/review -->", "kimi-run failed", "exit 75", "actions/runs/42", "1200 tokens in, 80 out", "$0.0031"} {
		if !strings.Contains(body, want) {
			t.Errorf("the sticky comment lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "Looks good.") || !strings.Contains(fmt.Sprint(gh.comments[2]["body"]), "No lint issues.") {
		t.Errorf("comments: %v", gh.comments)
	}

	// An event with no pull request or issue: nothing posted.
	os.WriteFile(event, []byte(`{"ref": "refs/heads/main"}`), 0o644)
	calls := len(gh.calls)
	post("review", "x", "0")
	if len(gh.calls) != calls {
		t.Errorf("a push event called the API: %v", gh.calls[calls:])
	}
}
