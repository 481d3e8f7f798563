//go:build linux

package run_test

// The escape suite, continued: issue 26's attempts at what the launcher holds (signals,
// code kept in the work dir that runs in the next run, an rg planted on PATH, processes
// that leave their group, a fork loop). Each attempt is made as a hostile model would,
// against the real binary, with a control that shows the attempt works where nothing
// stops it.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/kimi-run/kimi-run/internal/launch/launcher"
	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// armVisible runs a sandboxed run without the commands' namespaces (KIMI_RUN_NS=off), for
// the tests of what holds without them (the arm and kimi-run in sight, Landlock's signal
// scope) and for those that check the pids a command writes, which are the machine's only
// outside a process namespace of the commands' own.
var armVisible = map[string]string{"KIMI_RUN_NS": "off"}

// outsideSleeper starts a process the run has nothing to do with, killed at cleanup.
func outsideSleeper(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("sleep", "300")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-done })
	return cmd.Process.Pid
}

// signalAttempts is a command that tries to signal kimi-run (stop it, so --timeout never
// fires), the launcher (kill it, so nothing ends the run's leftovers) and a process
// outside, each found from the command's own ancestry, and then stops a server an
// earlier command of the run started. It prints one line per attempt: NAME:done or
// NAME:refused with the reason.
func signalAttempts(outside int) string {
	try := func(name, cmd string) string {
		return fmt.Sprintf(`if out=$(%s 2>&1); then echo %s:done; else echo "%s:refused $out"; fi; `, cmd, name, name)
	}
	return `ppid() { awk '{print $4}' /proc/$1/stat; }; ` +
		// Shell's parent is the launcher (or its confined arm), whose parent is the
		// launcher, whose parent is kimi-run.
		`up=$(ppid $PPID); case "$(tr '\0' ' ' < /proc/$up/cmdline)" in *__kimi-run-launcher*) ;; *) up=$PPID;; esac; kimi=$(ppid $up); ` +
		try("stop-kimi", "kill -STOP $kimi") +
		try("kill-launcher", "kill -KILL $up") +
		try("signal-outside", "kill -TERM "+strconv.Itoa(outside)) +
		try("stop-server", "kill $(cat server.pid)")
}

// TestEscapeSignals: under the sandbox a command cannot signal anything outside the run's
// confined processes — not kimi-run (kill -STOP would freeze the run past --timeout), not
// its launcher (killing it first would defeat the cleanup after a SIGKILL), not any other
// process — yet one command can still stop a server an earlier one started. The control
// without the sandbox shows the attempt on the outside process works (the others are not
// made there: they would stop the run).
func TestEscapeSignals(t *testing.T) {
	t.Parallel()
	needLandlock(t, 6)
	outside := outsideSleeper(t)
	dir := t.TempDir()
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.CallID("server", "Shell", `{"command":"sleep 300 > /dev/null 2>&1 & echo $! > server.pid"}`)),
		scripted.ToolCalls(scripted.CallID("signals", "Shell", fmt.Sprintf(`{"command":%q}`, signalAttempts(outside)))),
		scripted.Text("done"))
	// Landlock's signal scope, the second wall: with the commands' process namespace they
	// would not even see kimi-run or its launcher (TestEscapeNamespaces).
	r := kimi(t, srv, invocation{dir: dir, proc: true, env: armVisible, args: []string{"--output-format", "stream-json", "--sandbox", "workspace-write", "--timeout", "60s", "-p", "x"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	out, _ := results(events(t, r.stdout))["signals"]["output"].(string)
	for _, refused := range []string{"stop-kimi", "kill-launcher", "signal-outside"} {
		if !strings.Contains(out, refused+":refused") || !strings.Contains(out, "not permitted") {
			t.Errorf("%s was not refused:\n%s", refused, out)
		}
	}
	if !strings.Contains(out, "stop-server:done") {
		t.Errorf("a command could not stop the server an earlier command started:\n%s", out)
	}
	if testkit.ProcessGone(outside) {
		t.Error("the outside process was signalled")
	}

	// The control: the same signal to the outside process, without the sandbox.
	srv = scripted.New(t,
		scripted.ToolCalls(scripted.Call("Shell", fmt.Sprintf(`{"command":"kill -TERM %d && echo signalled"}`, outside))),
		scripted.Text("done"))
	r = kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "-p", "x"}})
	if r.code != 0 {
		t.Fatalf("control: exit %d\n%s", r.code, r.stderr)
	}
	testkit.WaitGone(t, outside)
}

// TestEscapeMCPServerLoadsFromTheWorkDir: under the sandbox every stdio MCP server runs
// confined, however little its configuration says about the work dir. The case:
// a server kept outside, started outside, whose environment makes it load a file from
// the work dir (NODE_OPTIONS="--require $WORK/plant.js"; a small wrapper reads it as node
// would), which a Shell call may have planted to write outside. It is confined, and still
// serves. The same server named in the user's own config.toml ([sandbox]
// trusted_mcp_servers) runs unconfined, and its write lands (the control). A trust written
// in a config file in the work dir, or for a server an mcp.json in the work dir defines,
// is ignored with a warning.
func TestEscapeMCPServerLoadsFromTheWorkDir(t *testing.T) {
	t.Parallel()
	needLandlock(t, 1)
	root := t.TempDir()
	// outside and cfg in HOME, which confined servers still read where they get a /tmp
	// of their own.
	home := filepath.Join(root, "home")
	work, outside, cfgDir := filepath.Join(root, "work"), filepath.Join(home, "outside"), filepath.Join(home, "cfg")
	for _, d := range []string{work, outside, filepath.Join(home, ".kimi"), cfgDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path, text string, mode os.FileMode) {
		if err := os.WriteFile(path, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
	}
	// What a confined command of an earlier run planted in the work dir.
	plant := filepath.Join(work, "plant.js")
	write(plant, "echo planted > \"$KR_OUTSIDE/by-$KR_NAME\"\n", 0o644)
	// The server's program, outside: it loads what NODE_OPTIONS requires, as node does.
	wrapper := filepath.Join(cfgDir, "server")
	write(wrapper, "#!/bin/sh\nset -- $NODE_OPTIONS\n[ \"$1\" = --require ] && . \"$2\"\nexec "+mcpServer(t)+" -name \"$KR_NAME\"\n", 0o755)
	server := func(name string) map[string]any {
		return map[string]any{"command": wrapper, "cwd": outside,
			"env": map[string]string{"NODE_OPTIONS": "--require " + plant, "KR_NAME": name, "KR_OUTSIDE": outside}}
	}
	trust := "[sandbox]\ntrusted_mcp_servers = [\"trusted\"]\n"
	write(filepath.Join(home, ".kimi", "config.toml"), trust, 0o644)
	write(filepath.Join(work, "kimi.toml"), trust, 0o644)
	servers := map[string]any{"plant": server("plant"), "trusted": server("trusted")}
	data, _ := json.Marshal(map[string]any{"mcpServers": servers})
	write(filepath.Join(cfgDir, "mcp.json"), string(data), 0o644)
	write(filepath.Join(work, "mcp.json"), string(data), 0o644)

	for _, c := range []struct {
		name    string
		args    []string
		trusted bool   // the trusted server runs unconfined
		warns   string // the file the warning names
	}{
		{name: "user's config", args: []string{"--mcp-config-file", filepath.Join(cfgDir, "mcp.json")}, trusted: true},
		{name: "config in the work dir", args: []string{"--config-file", filepath.Join(work, "kimi.toml"), "--mcp-config-file", filepath.Join(cfgDir, "mcp.json")}, warns: filepath.Join(work, "kimi.toml")},
		{name: "mcp.json in the work dir", args: []string{"--mcp-config-file", filepath.Join(work, "mcp.json")}, warns: filepath.Join(work, "mcp.json")},
	} {
		for _, f := range []string{"by-plant", "by-trusted"} {
			os.Remove(filepath.Join(outside, f))
		}
		srv := scripted.New(t,
			scripted.ToolCalls(scripted.CallID("call", "plant__echo", `{"text":"still works"}`)),
			scripted.Text("done"))
		r := kimi(t, srv, invocation{dir: work, env: map[string]string{"HOME": home},
			args: append([]string{"--output-format", "stream-json", "--mcp-strict", "--sandbox", "workspace-write", "-p", "x"}, c.args...)})
		if r.code != 0 {
			t.Fatalf("%s: exit %d\n%s\n%s", c.name, r.code, r.stdout, r.stderr)
		}
		evs := events(t, r.stdout)
		if out, _ := results(evs)["call"]["output"].(string); !strings.Contains(out, "still works") {
			t.Errorf("%s: the confined server did not serve: %v", c.name, out)
		}
		for name, want := range map[string]bool{"plant": false, "trusted": c.trusted} {
			_, err := os.Stat(filepath.Join(outside, "by-"+name))
			if got := err == nil; got != want {
				t.Errorf("%s: server %s's planted code wrote outside: %v, want %v", c.name, name, got, want)
			}
		}
		warned := testkit.Any(evs, "warning", func(e map[string]any) bool {
			m, _ := e["message"].(string)
			return strings.Contains(m, `MCP server "trusted" runs confined although trusted`) && strings.Contains(m, c.warns)
		})
		if warned != (c.warns != "") {
			t.Errorf("%s: warned of the trust not believed: %v\n%s", c.name, warned, r.stdout)
		}
	}
}

// TestEscapeRipgrepOnPath: with a directory of the work dir on PATH, one run plants an rg
// there; the next run's Grep must not run it (with or without the sandbox): the rg
// kimi-run starts is never taken from a directory the run's commands may write.
func TestEscapeRipgrepOnPath(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	work, outside := filepath.Join(root, "work"), filepath.Join(root, "outside")
	bin := filepath.Join(work, "bin")
	for _, d := range []string{bin, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	marker := filepath.Join(outside, "by-rg")
	if err := os.WriteFile(filepath.Join(bin, "rg"), []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "notes.txt"), []byte("needle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{nil, {"--sandbox", "workspace-write"}} {
		if len(args) > 0 {
			needLandlock(t, 1)
		}
		srv := scripted.New(t, scripted.ToolCalls(scripted.CallID("grep", "Grep", `{"pattern":"needle"}`)), scripted.Text("done"))
		r := kimi(t, srv, invocation{dir: work, env: map[string]string{"PATH": bin + ":" + os.Getenv("PATH")},
			args: append([]string{"--output-format", "stream-json", "-p", "x"}, args...)})
		if r.code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, r.code, r.stderr)
		}
		if out, _ := results(events(t, r.stdout))["grep"]["output"].(string); !strings.Contains(out, "notes.txt") {
			t.Errorf("%v: Grep did not find the file: %s", args, out)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%v: the rg planted in the work dir ran", args)
		}
	}
}

// TestDaemonsEndWithTheRun: processes a command moves out of its group — a setsid'd
// server, a double-forked daemon — end with the run (they used to outlive it), with and
// without the sandbox, with and without a cgroup; --keep-background keeps them.
func TestDaemonsEndWithTheRun(t *testing.T) {
	t.Parallel()
	cmd := `setsid sh -c 'echo $$ > setsid.pid; exec sleep 300' > /dev/null 2>&1 & ` +
		`(sh -c 'echo $$ > daemon.pid; exec sleep 300' > /dev/null 2>&1 &) ; ` +
		`until [ -s setsid.pid ] && [ -s daemon.pid ]; do sleep 0.01; done`
	for _, c := range []struct {
		name string
		args []string
		env  map[string]string
		keep bool
	}{
		{name: "plain"},
		{name: "sandboxed", args: []string{"--sandbox", "workspace-write"}, env: armVisible},
		{name: "no cgroup", env: map[string]string{"KIMI_RUN_CGROUP": "off"}},
		{name: "keep-background", args: []string{"--keep-background"}, keep: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if len(c.args) > 0 && c.args[0] == "--sandbox" {
				needLandlock(t, 1)
			}
			dir := t.TempDir()
			srv := scripted.New(t, scripted.ToolCalls(scripted.Call("Shell", fmt.Sprintf(`{"command":%q}`, cmd))), scripted.Text("done"))
			r := kimi(t, srv, invocation{dir: dir, env: c.env, args: append([]string{"--output-format", "stream-json", "-p", "x"}, c.args...)})
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			for _, f := range []string{"setsid.pid", "daemon.pid"} {
				pid := testkit.ReadPID(t, filepath.Join(dir, f))
				if c.keep {
					start := testkit.Started(pid)
					t.Cleanup(func() { testkit.Kill(pid, start, false) })
					if testkit.ProcessGone(pid) {
						t.Errorf("%s: --keep-background did not keep it", f)
					}
					continue
				}
				testkit.WaitGone(t, pid)
			}
		})
	}
}

// TestForkLoopIsBounded: under the sandbox a fork loop stops at the run's task limit
// (KIMI_RUN_TASK_LIMIT) instead of taking the machine, where a pids controller can be had,
// and what it forked ends with the run.
func TestForkLoopIsBounded(t *testing.T) {
	t.Parallel()
	needLandlock(t, 1)
	if !launcher.CanLimitTasks() {
		t.Skip("no pids controller can be had here (docs/sandbox.md lists it as a gap)")
	}
	dir := t.TempDir()
	// dash gives up at the first fork that fails; each sleeper's pid goes to kids.
	loop := `sh -c 'n=0; while [ $n -lt 1000 ]; do sleep 300 > /dev/null 2>&1 & echo $! >> kids; n=$((n+1)); done'; echo status $?; wc -l < kids`
	srv := scripted.New(t, scripted.ToolCalls(scripted.CallID("loop", "Shell", fmt.Sprintf(`{"command":%q}`, loop))), scripted.Text("done"))
	r := kimi(t, srv, invocation{dir: dir, env: map[string]string{"KIMI_RUN_TASK_LIMIT": "64", "KIMI_RUN_NS": "off"},
		args: []string{"--output-format", "stream-json", "--sandbox", "workspace-write", "-p", "x"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	out, _ := results(events(t, r.stdout))["loop"]["output"].(string)
	lines := strings.Fields(out)
	n, _ := strconv.Atoi(lines[len(lines)-1])
	if strings.Contains(out, "status 0") || n >= 64 || n == 0 {
		t.Errorf("the fork loop made %d sleepers under a limit of 64 tasks:\n%s", n, out)
	}
	pids, _ := pidsIn(filepath.Join(dir, "kids"), 0)
	for _, pid := range pids {
		testkit.WaitGone(t, pid)
	}
}

// TestStoppedArmDoesNotHoldTheRun: a confined command can stop its confined arm (they
// share a Landlock domain; docs/sandbox.md lists it). A stopped arm reports no end, and
// the call used to wait for one past its own timeout, and the run with it: forever
// without --timeout. The arm is now given up once it stayed stopped for the wait of an
// answer (10 s): the call ends as killed, the next one gets a new arm, the run ends on its
// own well before its --timeout (here only a bound for this test on main).
func TestStoppedArmDoesNotHoldTheRun(t *testing.T) {
	t.Parallel()
	needLandlock(t, 1)
	// It exits once its arm is seen stopped: a stop takes effect a moment after kill
	// returns, and an end before it would be reported (seen on a loaded CI machine).
	stop := `p=$(awk '{print $4}' /proc/$$/stat); kill -STOP $p; for i in $(seq 2000); do grep -q '^State:.*T' /proc/$p/status && break; done; echo stopped`
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.CallID("stop", "Shell", fmt.Sprintf(`{"command":%q,"timeout":1}`, stop))),
		scripted.ToolCalls(scripted.CallID("next", "Shell", `{"command":"echo next"}`)),
		scripted.Text("done"))
	r := kimi(t, srv, invocation{proc: true, env: armVisible, args: []string{"--output-format", "stream-json", "--sandbox", "workspace-write", "--timeout", "50s", "-p", "x"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	res := results(events(t, r.stdout))
	if res["stop"]["is_error"] != true {
		t.Errorf("the call that stopped its arm: %v", res["stop"])
	}
	if out, _ := res["next"]["output"].(string); !strings.Contains(out, "next") {
		t.Errorf("the call after it: %v", res["next"])
	}
}

// armSocketAttack is a root command's attack on its confined arm, which shares its
// Landlock domain: it takes the arm's socket to kimi-run (pidfd_getfd; root may, though
// the arm is not dumpable) and then, as "body", sends kimi-run a message whose body is
// /dev/zero and reports kimi-run's peak memory once kimi-run has closed the link; or, as
// "forge", stops the arm, reports its own call ended, and answers the next start with
// the number of a zombie outside the sandbox, whose group kimi-run would then signal.
const armSocketAttack = `
import array, ctypes, json, os, select, signal, socket, sys
libc = ctypes.CDLL(None, use_errno=True)
mode, shell = sys.argv[1], int(sys.argv[2])
stat = lambda p: open("/proc/%d/stat" % p).read().rsplit(")", 1)[1].split()
arm = int(stat(shell)[1])
kimi = int(stat(int(stat(arm)[1]))[1])
pfd, s = os.pidfd_open(arm), None
for n in range(64):
    f = libc.syscall(438, pfd, n, 0)
    if f < 0:
        continue
    try:
        t = socket.socket(fileno=f)
        if t.type == socket.SOCK_SEQPACKET:
            s = t
            break
        t.detach()
    except OSError:
        pass
    os.close(f)
if s is None:
    print("no socket taken")
    sys.exit(0)
def recv():
    # The descriptor is the arm's, which does not block; "" once kimi-run closed it.
    select.select([s], [], [])
    try:
        return s.recv(1 << 17)
    except OSError:
        return b""
if mode == "body":
    z = os.open("/dev/zero", os.O_RDONLY)
    s.sendmsg([b'{"op":"exit","body":true}'], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [z]))])
    while recv():
        pass
    hwm = [l for l in open("/proc/%d/status" % kimi) if l.startswith("VmHWM")][0].split()[1]
    print("peak", hwm)
else:
    os.kill(arm, signal.SIGSTOP)
    s.send(json.dumps({"op": "exit", "pid": shell, "status": 0}).encode())
    while True:
        b = recv()
        if not b:
            break
        m = json.loads(b)
        if m.get("op") == "start":
            s.send(json.dumps({"op": "started", "id": m["id"], "pid": int(sys.argv[3])}).encode())
            break
`

// TestEscapeThroughTheArmsSocket: root in the sandbox can take the confined arm's socket
// to kimi-run, or the arm itself, whatever kimi-run does: what kimi-run reads from it
// must not cost it unbounded memory (a body of /dev/zero was read up to 1 GiB, 2 GiB of
// memory), and a process it names must be its child before kimi-run signals its group (a
// zombie anywhere on the machine passed, and the group it led was signalled).
func TestEscapeThroughTheArmsSocket(t *testing.T) {
	t.Parallel()
	needLandlock(t, 6)
	if os.Geteuid() != 0 {
		t.Skip("only root may take the arm's socket")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("the attack is written in Python")
	}
	script := filepath.Join(t.TempDir(), "attack.py")
	if err := os.WriteFile(script, []byte(armSocketAttack), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Run("body", func(t *testing.T) {
		t.Parallel()
		// The attack outlives its call, which ends with the arm; the next call reads what it
		// found.
		command := fmt.Sprintf(`setsid sh -c 'python3 %s body $0 > peak.tmp && mv peak.tmp peak.txt' $$ > /dev/null 2>&1 < /dev/null & sleep 30`, script)
		srv := scripted.New(t,
			scripted.ToolCalls(scripted.CallID("body", "Shell", fmt.Sprintf(`{"command":%q}`, command))),
			scripted.ToolCalls(scripted.CallID("next", "Shell", `{"command":"until [ -s peak.txt ]; do sleep 0.05; done; cat peak.txt; echo next"}`)),
			scripted.Text("done"))
		r := kimi(t, srv, invocation{proc: true, env: armVisible, args: []string{"--output-format", "stream-json", "--sandbox", "workspace-write", "--timeout", "50s", "-p", "x"}})
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		res := results(events(t, r.stdout))
		out, _ := res["next"]["output"].(string)
		var kb int
		if i := strings.Index(out, "peak "); i >= 0 {
			fmt.Sscan(out[i+5:], &kb)
		}
		if kb == 0 || kb > 256<<10 {
			t.Errorf("kimi-run's peak memory: %d KiB:\n%s", kb, out)
		}
		if out, _ := res["next"]["output"].(string); !strings.Contains(out, "next") {
			t.Errorf("the call after it: %v", res["next"])
		}
	})
	for _, reaped := range []bool{false, true} {
		forge(t, script, reaped)
	}
}

// forge runs the "forge" attack of TestEscapeThroughTheArmsSocket: it names the leader of
// a group outside whose member runs, a zombie not reaped yet, or reaped and gone.
func forge(t *testing.T, script string, reaped bool) {
	t.Run(fmt.Sprintf("forge reaped=%v", reaped), func(t *testing.T) {
		t.Parallel()
		lead := exec.Command("sh", "-c", "sleep 300 & echo $!")
		lead.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		stdout, err := lead.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := lead.Start(); err != nil {
			t.Fatal(err)
		}
		var member int
		fmt.Fscan(stdout, &member)
		start := testkit.Started(member)
		t.Cleanup(func() { testkit.Kill(member, start, false) })
		if reaped {
			lead.Wait()
		} else {
			t.Cleanup(func() { lead.Wait() })
		}
		command := fmt.Sprintf("setsid python3 %s forge $$ %d > /dev/null 2>&1 < /dev/null & sleep 30", script, lead.Process.Pid)
		srv := scripted.New(t,
			scripted.ToolCalls(scripted.CallID("forge", "Shell", fmt.Sprintf(`{"command":%q}`, command))),
			scripted.ToolCalls(scripted.CallID("next", "Shell", `{"command":"sleep 5","timeout":1}`)),
			scripted.Text("done"))
		r := kimi(t, srv, invocation{proc: true, env: armVisible, args: []string{"--output-format", "stream-json", "--sandbox", "workspace-write", "--timeout", "50s", "-p", "x"}})
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		if testkit.ProcessGone(member) {
			t.Errorf("kimi-run signalled a group outside the sandbox that a confined arm named")
		}
	})
}
