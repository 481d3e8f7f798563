package run_test

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
	"github.com/kimi-run/kimi-run/sandbox"
)

// needLandlock skips a test on systems without Landlock; there, TestSandboxUnavailable
// checks that asking for the sandbox fails instead.
func needLandlock(t *testing.T, abi int) {
	t.Helper()
	if got := sandbox.ABI(); got < abi {
		t.Skipf("Landlock ABI %d, this test needs %d", got, abi)
	}
}

// writeRefused reports whether a command's output says a write was refused: "Permission
// denied" from Landlock, or "Read-only file system" where the commands' mounts are
// read-only (a create outside the writable dirs meets that first).
func writeRefused(out string) bool {
	return strings.Contains(out, "Permission denied") || strings.Contains(out, "Read-only file system")
}

// results maps each tool call id to its tool_result event.
func results(evs []map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, e := range testkit.OfType(evs, "tool_result") {
		out[e["id"].(string)] = e
	}
	return out
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func TestSandboxWorkspaceWrite(t *testing.T) {
	t.Parallel()
	needLandlock(t, 1)
	root := t.TempDir()
	work, outside, added := filepath.Join(root, "work"), filepath.Join(root, "outside"), filepath.Join(root, "added")
	for _, d := range []string{work, outside, added} {
		os.Mkdir(d, 0o755)
	}
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("readable\n"), 0o644)
	// The subagent's Shell is the parent's, so it is confined too.
	srv := scripted.New(t,
		scripted.ToolCalls(
			scripted.CallID("sh_in", "Shell", `{"command":"touch inside.txt && mkdir -p d && mv inside.txt d/ && cat ../outside/secret.txt"}`),
			scripted.CallID("sh_out", "Shell", `{"command":"touch ../work/../outside/escaped.txt"}`),
			scripted.CallID("sh_tmp", "Shell", `{"command":"echo scratch > \"$TMPDIR/scratch\" && cat \"$TMPDIR/scratch\" && echo x > /dev/null"}`),
			scripted.CallID("sh_add", "Shell", `{"command":"touch `+added+`/added.txt"}`),
			scripted.CallID("wf_in", "WriteFile", `{"path":"written.txt","content":"ok\n"}`),
			scripted.CallID("wf_out", "WriteFile", `{"path":"`+outside+`/written.txt","content":"no\n"}`),
			scripted.CallID("task", "Agent", `{"description":"escape","prompt":"write outside","subagent_type":"coder"}`),
		),
		scripted.ToolCalls(scripted.CallID("sub_out", "Shell", `{"command":"touch `+outside+`/by-subagent.txt"}`)),
		scripted.Text("The subagent could not write there."),
		scripted.Text("Some writes were refused."),
	)
	// root is HOME, which commands still read where they get a /tmp of their own (the rest
	// of the shared temp dir, root's parent, is out of their sight then).
	r := kimi(t, srv, invocation{dir: work, env: map[string]string{"HOME": root}, args: []string{"--output-format", "stream-json", "--sandbox", "workspace-write", "--add-dir", added, "-p", "write files"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for path, want := range map[string]bool{
		filepath.Join(work, "d", "inside.txt"):    true,
		filepath.Join(work, "written.txt"):        true,
		filepath.Join(added, "added.txt"):         true,
		filepath.Join(outside, "escaped.txt"):     false,
		filepath.Join(outside, "written.txt"):     false,
		filepath.Join(outside, "by-subagent.txt"): false,
	} {
		if exists(path) != want {
			t.Errorf("%s exists = %v, want %v", path, !want, want)
		}
	}
	evs := events(t, r.stdout)
	res := results(evs)
	for id, wantErr := range map[string]bool{"sh_in": false, "sh_out": true, "sh_tmp": false, "sh_add": false, "wf_in": false, "wf_out": true, "sub_out": true} {
		e := res[id]
		if e == nil || e["is_error"] != wantErr {
			t.Errorf("%s: tool_result = %v, want is_error %v", id, e, wantErr)
		}
	}
	if out := res["sh_in"]["output"].(string); !strings.Contains(out, "readable") {
		t.Errorf("reading outside the work dir failed: %q", out)
	}
	if out := res["sh_out"]["output"].(string); !writeRefused(out) {
		t.Errorf("the refused write says %q", out)
	}
	if out := res["sh_tmp"]["output"].(string); !strings.Contains(out, "scratch") {
		t.Errorf("the temp dir is not writable: %q", out)
	}
	// The WriteFile outside was not run; the commands ran and were refused their write,
	// which their output says and the sandbox's policy confirms (issue 32 #3).
	denied := map[string]map[string]any{}
	for _, d := range testkit.OfType(evs, "tool_denied") {
		denied[d["id"].(string)] = d
		if d["rule"] != "sandbox" || d["source"] != "sandbox" {
			t.Errorf("tool_denied = %v, want the sandbox's", d)
		}
	}
	if len(denied) != 3 || denied["wf_out"] == nil || denied["sh_out"] == nil || denied["sub_out"]["parent_tool_call_id"] != "task" {
		t.Errorf("tool_denied = %v, want the WriteFile outside, and both commands writing outside", denied)
	}
	if msg, _ := denied["sh_out"]["message"].(string); !strings.Contains(msg, "refused writing ../work/../outside/escaped.txt") {
		t.Errorf("the command's denial says %q", msg)
	}
	if out := res["sh_out"]["output"].(string); !strings.Contains(out, "<system>the sandbox (--sandbox workspace-write) refused writing") {
		t.Errorf("the model was not told what the sandbox refused: %q", out)
	}
	// The model was told what it may write.
	if sys := srv.Requests()[0].Messages()[0]["content"].(string); !strings.Contains(sys, "sandbox (workspace-write)") || !strings.Contains(sys, added) {
		t.Errorf("system prompt does not describe the sandbox")
	}
}

func TestSandboxReadOnly(t *testing.T) {
	t.Parallel()
	needLandlock(t, 1)
	work := t.TempDir()
	os.WriteFile(filepath.Join(work, "f.txt"), []byte("content\n"), 0o644)
	srv := scripted.New(t,
		scripted.ToolCalls(
			scripted.CallID("read", "Shell", `{"command":"cat f.txt && ls /"}`),
			scripted.CallID("write", "Shell", `{"command":"echo more >> f.txt"}`),
			scripted.CallID("edit", "StrReplaceFile", `{"path":"f.txt","edit":{"old":"content","new":"changed"}}`),
		),
		scripted.Text("Read only."),
	)
	r := kimi(t, srv, invocation{dir: work, args: []string{"--output-format", "stream-json", "--sandbox", "read-only", "-p", "x"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(work, "f.txt")); string(got) != "content\n" {
		t.Errorf("f.txt = %q, want it unchanged", got)
	}
	res := results(events(t, r.stdout))
	if res["read"]["is_error"] != false || res["write"]["is_error"] != true || res["edit"]["is_error"] != true {
		t.Errorf("results = %v", res)
	}
}

func TestSandboxNetworkOff(t *testing.T) {
	t.Parallel()
	needLandlock(t, 4)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 10)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	connect := fmt.Sprintf(`{"command":"exec 3<>/dev/tcp/127.0.0.1/%d && echo connected"}`, port)
	// The refused run first, while the listener has seen nothing; then the control.
	for _, off := range []bool{true, false} {
		t.Run(fmt.Sprintf("off=%v", off), func(t *testing.T) {
			srv := scripted.New(t,
				scripted.ToolCalls(scripted.CallID("dial", "Shell", connect),
					scripted.CallID("fetch", "FetchURL", fmt.Sprintf(`{"url":"http://127.0.0.1:%d/"}`, port))),
				scripted.Text("done"),
			)
			args := []string{"--output-format", "stream-json", "-p", "x"}
			if off {
				args = append(args, "--sandbox-network", "off")
			}
			r := kimi(t, srv, invocation{args: args})
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			evs := events(t, r.stdout)
			dial := results(evs)["dial"]
			if off {
				if dial["is_error"] != true || !strings.Contains(dial["output"].(string), "Permission denied") {
					t.Errorf("the connect was not refused: %v", dial)
				}
				if d := testkit.OfType(evs, "tool_denied"); len(d) != 1 || d[0]["name"] != "FetchURL" {
					t.Errorf("tool_denied = %v, want FetchURL refused", d)
				}
				if len(accepted) != 0 {
					t.Errorf("a connection got through with the network off")
				}
				return
			}
			// Without the sandbox the same command connects: the refusal above is the sandbox's.
			if dial["is_error"] != false || !strings.Contains(dial["output"].(string), "connected") {
				t.Errorf("the control connect failed: %v", dial)
			}
			select {
			case <-accepted:
			case <-time.After(10 * time.Second):
				t.Errorf("the listener saw no connection")
			}
		})
	}
}

func TestSandboxUnavailable(t *testing.T) {
	t.Parallel()
	if sandbox.ABI() >= 4 {
		t.Skip("this system has Landlock; the refusal is for systems without it")
	}
	flag := []string{"--sandbox", "workspace-write"}
	if sandbox.ABI() >= 1 {
		flag = []string{"--sandbox-network", "off"}
	}
	r := kimi(t, nil, invocation{args: append([]string{"--output-format", "stream-json", "-p", "x"}, flag...)})
	if r.code != 2 || !strings.Contains(r.stderr, flag[0]) {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	if runtime.GOOS != "linux" && !strings.Contains(r.stderr, "Landlock") {
		t.Errorf("stderr does not say why: %q", r.stderr)
	}
}

func TestAddDirMustBeADirectory(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	r := kimi(t, nil, invocation{args: []string{"--add-dir", file, "-p", "x"}})
	if r.code != 2 || !strings.Contains(r.stderr, "--add-dir") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestSandboxTempDirIsRemoved(t *testing.T) {
	t.Parallel()
	needLandlock(t, 1)
	tmp := t.TempDir()
	srv := scripted.New(t, scripted.ToolCalls(scripted.CallID("sh", "Shell", `{"command":"touch $TMPDIR/x && echo $TMPDIR"}`)), scripted.Text("ok"))
	// A process of its own: the run makes its temporary dir with os.MkdirTemp, which reads
	// TMPDIR from the process environment, not from the run's (IO.Getenv).
	r := kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "--sandbox", "read-only", "-p", "x"}, env: map[string]string{"TMPDIR": tmp}, proc: true})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if out := results(events(t, r.stdout))["sh"]["output"].(string); !strings.Contains(out, filepath.Join(tmp, "kimi-run-sandbox-")) {
		t.Fatalf("the command's TMPDIR is not the run's own dir under $TMPDIR: %q", out)
	}
	entries, err := os.ReadDir(tmp)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "kimi-run-sandbox-") {
			t.Errorf("the run's temp dir %s was left behind", e.Name())
		}
	}
}

// A sandbox setting that cannot be used is a usage error named on stderr, before any model
// call: a bad --allow-host rule, a bad task limit under the sandbox.
func TestSandboxSettingsUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, want string
		args       []string
		env        map[string]string
		landlock   int
	}{
		{name: "allow-host URL", args: []string{"--allow-host", "https://example.com"}, want: "--allow-host: \"https://example.com\": want HOST or HOST:PORT"},
		{name: "task limit", args: []string{"--sandbox", "workspace-write"}, env: map[string]string{"KIMI_RUN_TASK_LIMIT": "many"}, landlock: 1, want: `KIMI_RUN_TASK_LIMIT="many": want a number of tasks`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			needLandlock(t, tt.landlock)
			r := kimi(t, nil, invocation{args: append([]string{"--output-format", "stream-json", "-p", "x"}, tt.args...), env: tt.env})
			if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", r.code, r.stderr, tt.want)
			}
		})
	}
}
