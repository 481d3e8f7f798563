package run_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// actionRun is one run of scripts/action-run.sh with a faked runner environment.
type actionRun struct {
	stdout, stderr string
	code           int
	outputs        map[string]string
	summary        string
}

func needBash(t *testing.T, tools ...string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the action's scripts are tested on Unix")
	}
	for _, tool := range append([]string{"bash"}, tools...) {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
}

// runActionScript runs the action's run script in dir, as the composite action's step
// would: INPUT_* from the inputs, the GITHUB_* files of a runner, the installed binary.
func runActionScript(t *testing.T, dir string, inputs map[string]string) actionRun {
	t.Helper()
	needBash(t)
	runner := t.TempDir()
	summary, outputs := filepath.Join(runner, "summary.md"), filepath.Join(runner, "output.txt")
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + t.TempDir(),
		"RUNNER_TEMP=" + filepath.Join(runner, "temp"),
		"GITHUB_OUTPUT=" + outputs,
		"GITHUB_STEP_SUMMARY=" + summary,
		"GITHUB_JOB=review",
		"GITHUB_RUN_ATTEMPT=2",
		"KIMI_RUN_BIN=" + binary,
	}
	for k, v := range inputs {
		env = append(env, k+"="+v)
	}
	script, _ := filepath.Abs(filepath.Join("..", "scripts", "action-run.sh"))
	cmd := exec.Command("bash", script)
	cmd.Dir, cmd.Env = dir, env
	cmd.Env = append(cmd.Env, coverEnv()...)
	res := runCmd(t, cmd)
	r := actionRun{stdout: res.stdout, stderr: res.stderr, code: res.code, outputs: map[string]string{}}
	b, _ := os.ReadFile(outputs)
	r.outputs = parseOutputs(string(b))
	s, _ := os.ReadFile(summary)
	r.summary = string(s)
	return r
}

func TestActionRunScriptReplaysTheTour(t *testing.T) {
	t.Parallel()
	// A cassette path with a space, passed one argument per line.
	casDir := filepath.Join(t.TempDir(), "my cassettes")
	os.MkdirAll(casDir, 0o755)
	cas := filepath.Join(casDir, "tour.jsonl")
	os.WriteFile(cas, repoFile(t, "testdata/cassettes/tour.jsonl"), 0o644)

	r := runActionScript(t, checkoutLike(t), map[string]string{
		"INPUT_PROMPT":        "What is this project?",
		"INPUT_OUTPUT_FORMAT": "text",
		"INPUT_ARGS":          "--replay\n  " + cas + "\n--replay-speed\n0\n",
	})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	o := r.outputs
	if o["exit-code"] != "0" || o["session-id"] == "" || o["events-file"] != "" {
		t.Errorf("outputs = %v", o)
	}
	if answer, err := os.ReadFile(o["result-file"]); err != nil || string(answer) != tourAnswer+"\n" {
		t.Errorf("result-file %q holds %q (%v)", o["result-file"], answer, err)
	}
	if !strings.Contains(r.stdout, "What you just watched was a replay") {
		t.Errorf("the answer is not in the log:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "Shell  head -n 1 go.mod -> ok") {
		t.Errorf("the progress is not in the log:\n%s", r.stderr)
	}
	for _, want := range []string{"### kimi-run: completed", "What you just watched was a replay", "- session: `" + o["session-id"] + "`"} {
		if !strings.Contains(r.summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, r.summary)
		}
	}
	art := o["artifact-dir"]
	for _, f := range []string{"sessions/" + o["session-id"] + "/context.jsonl", "stderr.log", "answer.md"} {
		if _, err := os.Stat(filepath.Join(art, f)); err != nil {
			t.Errorf("the artifact lacks %s: %v", f, err)
		}
	}
	if want := "kimi-run-review-" + o["session-id"] + "-2-"; !strings.HasPrefix(o["artifact-name"], want) || len(o["artifact-name"]) <= len(want) {
		t.Errorf("artifact-name = %q, want %s and a suffix of its own", o["artifact-name"], want)
	}
}

func TestActionRunScriptReportsAFailure(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Scenario(t, "unauthorized")...)
	r := runActionScript(t, t.TempDir(), map[string]string{
		"INPUT_PROMPT":        "review the diff",
		"INPUT_OUTPUT_FORMAT": "stream-json",
		"INPUT_MODEL":         "test-model",
		"INPUT_BASE_URL":      srv.URL(),
		"INPUT_API_KEY":       testKey,
		"INPUT_TIMEOUT":       "5m",
	})
	if r.code != 5 {
		t.Fatalf("exit %d, want 5\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if got := srv.Requests()[0].Header.Get("Authorization"); got != "Bearer "+testKey {
		t.Errorf("the api-key input did not reach the provider: %q", got)
	}
	o := r.outputs
	if o["exit-code"] != "5" || o["session-id"] == "" || o["events-file"] == "" {
		t.Errorf("outputs = %v", o)
	}
	ev, err := os.ReadFile(o["events-file"])
	if err != nil {
		t.Fatal(err)
	}
	res := lastResult(t, result{stdout: string(ev), code: 5})
	if res["session_id"] != o["session-id"] {
		t.Errorf("session-id output %q, result %v", o["session-id"], res["session_id"])
	}
	if r.stdout != "::add-mask::"+testKey+"\n"+string(ev) {
		t.Errorf("the log is not the mask command and the events:\n%s", r.stdout)
	}
	for _, want := range []string{"### kimi-run failed: authentication refused by the provider (exit 5)", "_No answer._", "401"} {
		if !strings.Contains(r.summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, r.summary)
		}
	}
	if _, err := os.Stat(filepath.Join(o["artifact-dir"], "sessions", o["session-id"], "context.jsonl")); err != nil {
		t.Errorf("the failed run's session is not in the artifact: %v", err)
	}
	// The key is masked for the log and appears nowhere the script wrote.
	if !strings.Contains(r.stdout+r.stderr, "::add-mask::") {
		t.Errorf("the key was not masked")
	}
	var leaks []string
	filepath.Walk(o["artifact-dir"], func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(testKey)) {
				leaks = append(leaks, p)
			}
		}
		return nil
	})
	if strings.Contains(r.summary, testKey) || len(leaks) > 0 {
		t.Errorf("the key leaked into the summary or %v", leaks)
	}
	if strings.Count(r.stdout+r.stderr, testKey) > 1 {
		t.Errorf("the key appears in the log beyond its ::add-mask:: line")
	}
}

// binaryVersion is what the kimi-run built for the tests says of itself: "dev", or with
// Go's default -buildvcs in a git checkout, a pseudo-version stamped from the commit.
func binaryVersion(t *testing.T) string {
	t.Helper()
	out, err := exec.Command(binary, "--version").Output()
	if err != nil {
		t.Fatalf("kimi-run --version: %v", err)
	}
	return strings.TrimPrefix(strings.TrimSpace(string(out)), "kimi-run ")
}

// parseOutputs reads a GITHUB_OUTPUT file: name=value lines and name<<DELIM blocks.
func parseOutputs(s string) map[string]string {
	out := map[string]string{}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		if k, delim, ok := strings.Cut(lines[i], "<<"); ok && !strings.Contains(k, "=") {
			var v []string
			for i++; i < len(lines) && lines[i] != delim; i++ {
				v = append(v, lines[i])
			}
			out[k] = strings.Join(v, "\n")
			continue
		}
		if k, v, ok := strings.Cut(lines[i], "="); ok {
			out[k] = v
		}
	}
	return out
}

// TestActionInstallScript installs a fake release from a local server: the archive and
// checksums.txt named as goreleaser names them.
func TestActionInstallScript(t *testing.T) {
	t.Parallel()
	needBash(t, "curl", "tar")
	arch := map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH]
	osName := map[string]string{"linux": "Linux", "darwin": "macOS"}[runtime.GOOS]
	if arch == "" || osName == "" {
		t.Skip("no release for this platform")
	}
	exe, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	var archive bytes.Buffer
	// The archive's content is what counts, not its size: the fastest level saves about a
	// second of CPU over the default on the 15 MB binary.
	gz, _ := gzip.NewWriterLevel(&archive, gzip.BestSpeed)
	tw := tar.NewWriter(gz)
	for name, body := range map[string][]byte{"kimi-run": exe, "README.md": []byte("read me\n")} {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(body))})
		tw.Write(body)
	}
	tw.Close()
	gz.Close()
	name := fmt.Sprintf("kimi-run_1.2.3_%s_%s.tar.gz", runtime.GOOS, runtime.GOARCH)
	sum := sha256.Sum256(archive.Bytes())

	tests := []struct {
		name, version, checksums, err string
	}{
		{name: "latest", version: "latest", checksums: hex.EncodeToString(sum[:]) + "  " + name + "\n"},
		{name: "a version without v", version: "1.2.3", checksums: "0000  other.zip\n" + hex.EncodeToString(sum[:]) + "  " + name + "\n"},
		{name: "tampered archive", version: "v1.2.3", checksums: strings.Repeat("ab", 32) + "  " + name + "\n", err: "checksum mismatch"},
		{name: "not in checksums.txt", version: "v1.2.3", checksums: "0000  other.zip\n", err: "does not list " + name},
		{name: "no such release", version: "v9.9.9", err: "cannot download"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mux := http.NewServeMux()
			mux.HandleFunc("/api/repos/acme/kimi-run/releases/latest", func(w http.ResponseWriter, r *http.Request) {
				fmt.Fprint(w, `{"url":"x","tag_name": "v1.2.3","name":"v1.2.3"}`)
			})
			mux.HandleFunc("/gh/acme/kimi-run/releases/download/v1.2.3/"+name, func(w http.ResponseWriter, r *http.Request) {
				w.Write(archive.Bytes())
			})
			mux.HandleFunc("/gh/acme/kimi-run/releases/download/v1.2.3/checksums.txt", func(w http.ResponseWriter, r *http.Request) {
				fmt.Fprint(w, tt.checksums)
			})
			srv := httptest.NewServer(mux)
			defer srv.Close()

			runner := t.TempDir()
			outputs := filepath.Join(runner, "output.txt")
			script, _ := filepath.Abs(filepath.Join("..", "scripts", "action-install.sh"))
			cmd := exec.Command("bash", script)
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + runner, "RUNNER_TEMP=" + runner, "GITHUB_OUTPUT=" + outputs,
				"RUNNER_OS=" + osName, "RUNNER_ARCH=" + arch, "KIMI_RUN_VERSION=" + tt.version, "KIMI_RUN_REPOSITORY=acme/kimi-run",
				"KIMI_RUN_GITHUB_URL=" + srv.URL + "/gh", "KIMI_RUN_API_URL=" + srv.URL + "/api"}
			cmd.Env = append(cmd.Env, coverEnv()...)
			out, err := cmd.CombinedOutput()
			bin := filepath.Join(runner, "kimi-run-bin", "kimi-run")
			if tt.err != "" {
				if err == nil || !strings.Contains(string(out), tt.err) {
					t.Fatalf("err %v, output:\n%s\nwant a failure saying %q", err, out, tt.err)
				}
				if _, err := os.Stat(bin); err == nil {
					t.Errorf("a binary was installed anyway")
				}
				return
			}
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			o, _ := os.ReadFile(outputs)
			if got, want := parseOutputs(string(o)), binaryVersion(t); got["bin"] != bin || got["version"] != want {
				t.Errorf("outputs = %q, want bin=%s and version=%s", o, bin, want)
			}
			if v, err := exec.Command(bin, "--version").Output(); err != nil || !strings.HasPrefix(string(v), "kimi-run ") {
				t.Errorf("the installed binary: %q %v", v, err)
			}
		})
	}
}
