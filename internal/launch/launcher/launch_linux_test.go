package launcher

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/launch"
	"github.com/kimi-run/kimi-run/internal/testkit"
	"github.com/kimi-run/kimi-run/sandbox"
)

// This test binary acts as kimi-run's launcher (and its confined arm) when a Launcher
// starts it.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == ServeArg {
		os.Exit(Serve(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// newLauncher returns a launcher whose process is this test binary, closed at the end.
func newLauncher(t *testing.T, l *launch.Launcher) *launch.Launcher {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	l.Process = New(exe, l)
	t.Cleanup(l.Close)
	return l
}

// proc is l's launcher process.
func proc(l *launch.Launcher) *Process { return l.Process.(*Process) }

// run starts sh -c script through l and returns its state and output (stdout and stderr).
func run(t *testing.T, l *launch.Launcher, s launch.Spec, script string) (launch.State, string, *launch.Proc) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s.Path, s.Args, s.Stdout, s.Stderr = "/bin/sh", []string{"sh", "-c", script, "zero", "one"}, w, w
	p, err := l.Start(s)
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(r)
	return p.Wait(), string(out), p
}

// A child started through the launcher is the command itself: its $$ is the Proc's pid,
// with its own $0, arguments, directory, the launcher's environment with the Spec's on
// top, no socket of the launcher's, its own session; and its parent is the launcher,
// a process with an empty environment that is not kimi-run.
func TestStartThroughTheLauncher(t *testing.T) {
	dir := t.TempDir()
	l := newLauncher(t, &launch.Launcher{Environ: []string{"PATH=" + os.Getenv("PATH"), "BASE=base", "OVER=base"}})
	st, out, p := run(t, l, launch.Spec{Dir: dir, Env: []string{"OVER=spec"}},
		`echo "$$ $0 $1 $BASE $OVER $(pwd)"; for f in /proc/$$/fd/*; do readlink $f; done | grep -c socket; ps -o sid= -p $$; echo $PPID; tr '\0' '\n' < /proc/$PPID/environ | wc -l`)
	if !st.Success() {
		t.Fatalf("%s: %s", st, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 {
		t.Fatalf("output %q", out)
	}
	if want := fmt.Sprintf("%d zero one base spec %s", p.Pid, dir); lines[0] != want {
		t.Errorf("got %q, want %q", lines[0], want)
	}
	if lines[1] != "0" {
		t.Errorf("the child holds %s sockets (the launcher's?)", lines[1])
	}
	if sid := strings.TrimSpace(lines[2]); sid != strconv.Itoa(p.Pid) {
		t.Errorf("session %s, want its own (%d)", sid, p.Pid)
	}
	if ppid := strings.TrimSpace(lines[3]); ppid == strconv.Itoa(os.Getpid()) {
		t.Error("the child's parent is kimi-run, not the launcher")
	}
	if n := strings.TrimSpace(lines[4]); n != "0" {
		t.Errorf("the launcher's environment has %s variables, want none", n)
	}
}

// How a child ended comes back as os would say it, and a start that fails is an error
// worded as os/exec's.
func TestStatesAndStartErrors(t *testing.T) {
	l := newLauncher(t, &launch.Launcher{})
	for script, want := range map[string]string{"exit 3": "exit status 3", "kill -KILL $$": "signal: killed", "true": "exit status 0"} {
		st, _, _ := run(t, l, launch.Spec{}, script)
		if st.String() != want {
			t.Errorf("%s: %s, want %s", script, st, want)
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "noexec"), []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"no-such-program-here":       `exec: "no-such-program-here": executable file not found in $PATH`,
		"/no/such/file":              "fork/exec /no/such/file: no such file or directory",
		filepath.Join(dir, "noexec"): "fork/exec " + filepath.Join(dir, "noexec") + ": permission denied",
		"./noexec":                   "fork/exec " + filepath.Join(dir, "noexec") + ": permission denied",
		"":                           "no program to run",
	} {
		_, err := l.Start(launch.Spec{Path: path, Dir: dir})
		if err == nil || err.Error() != want {
			t.Errorf("Start(%q) = %v, want %q", path, err, want)
		}
	}
}

// A large environment (more than a datagram holds) still reaches the child.
func TestLargeEnvironment(t *testing.T) {
	big := strings.Repeat("x", 100<<10) // one string may have 128 KiB at most
	l := newLauncher(t, &launch.Launcher{Environ: []string{"PATH=" + os.Getenv("PATH")}})
	st, out, _ := run(t, l, launch.Spec{Env: []string{"B1=" + big, "B2=" + big, "B3=" + big}}, `printf %s "$B1$B2$B3" | wc -c`)
	if !st.Success() || strings.TrimSpace(out) != strconv.Itoa(3*len(big)) {
		t.Errorf("%s: %q", st, out)
	}
}

// Without a launcher process (none set, or it cannot start), children start from this
// process; a confined one does not start at all.
func TestWithoutALauncherProcess(t *testing.T) {
	bad := func(l *launch.Launcher) *launch.Launcher { l.Process = New("/no/such/kimi-run", l); return l }
	for name, l := range map[string]*launch.Launcher{"nil": nil, "no exe": {}, "bad exe": bad(&launch.Launcher{})} {
		st, out, _ := run(t, l, launch.Spec{}, "echo $PPID")
		if !st.Success() || strings.TrimSpace(out) != strconv.Itoa(os.Getpid()) {
			t.Errorf("%s: %s, parent %q, want this process", name, st, out)
		}
	}
	policy := sandbox.Policy{Mode: sandbox.ReadOnly, TempDir: t.TempDir()}
	for name, l := range map[string]*launch.Launcher{"no exe": {Policy: policy}, "bad exe": bad(&launch.Launcher{Policy: policy})} {
		if p, err := l.Start(launch.Spec{Path: "/bin/true", Confine: true}); err == nil {
			p.Wait()
			t.Errorf("%s: a confined child started without a launcher", name)
		}
	}
}

// daemon is a script that leaves a process outside its group: a double-forked, setsid'd
// sleeper, whose pid it writes to pidfile.
func daemon(pidfile string) string {
	return fmt.Sprintf(`(setsid sh -c 'echo $$ > %s.tmp; mv %s.tmp %s; exec sleep 300' >/dev/null 2>&1 &) ; true`, pidfile, pidfile, pidfile)
}

// abandon does to the launcher processes what kimi-run's death does: their sockets close
// without a word.
func abandon(l *launch.Launcher) {
	proc(l).mu.Lock()
	defer proc(l).mu.Unlock()
	for _, k := range append([]*link{proc(l).rem.top}, proc(l).rem.box[:]...) {
		if k != nil {
			k.conn.Close()
		}
	}
}

// waitFile waits (bounded) for a file to exist.
func waitFile(t *testing.T, path string) {
	t.Helper()
	for range 3000 {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s never appeared", path)
}

// What a child leaves running, even outside its group (setsid, a double fork), ends with
// the run: when it ends the orderly way (Close), and when kimi-run is gone without a word
// (SIGKILL: here its end of the socket closes). With and without a cgroup.
func TestLeftoversEndWithTheRun(t *testing.T) {
	for _, noCgroup := range []bool{false, true} {
		for _, how := range []string{"close", "abandon"} {
			t.Run(fmt.Sprintf("cgroup=%v/%s", !noCgroup, how), func(t *testing.T) {
				pidfile := filepath.Join(t.TempDir(), "daemon.pid")
				l := newLauncher(t, &launch.Launcher{NoCgroup: noCgroup})
				if st, out, _ := run(t, l, launch.Spec{}, daemon(pidfile)); !st.Success() {
					t.Fatalf("%s: %s", st, out)
				}
				waitFile(t, pidfile)
				pid := testkit.ReadPID(t, pidfile)
				if testkit.ProcessGone(pid) {
					t.Fatal("the daemon did not start")
				}
				switch how {
				case "close":
					l.Close()
				case "abandon":
					abandon(l)
				}
				testkit.WaitGone(t, pid)
			})
		}
	}
}

// Under Keep (--keep-background) what a kept child leaves survives the run, and what the
// others leave does not, when kimi-run is gone, confined or not; the orderly end leaves
// both to kimi-run.
func TestKeep(t *testing.T) {
	policies := []sandbox.Policy{{}}
	if sandbox.ABI() >= 1 {
		policies = append(policies, sandbox.Policy{Mode: sandbox.ReadOnly, TempDir: t.TempDir()})
	}
	for _, policy := range policies {
		t.Run(fmt.Sprintf("confined=%v", policy.Active()), func(t *testing.T) {
			dir := t.TempDir()
			kept, other := filepath.Join(dir, "kept.pid"), filepath.Join(dir, "other.pid")
			l := newLauncher(t, &launch.Launcher{Keep: true, Policy: policy})
			// The kept child leaves a daemon; the other a process in its own group. Under
			// read-only the scripts write their pids through /dev/fd: there is no other
			// writable place, so they go to files the test opened.
			kf, _ := os.Create(kept)
			of, _ := os.Create(other)
			defer kf.Close()
			defer of.Close()
			p1, err := l.Start(launch.Spec{Path: "/bin/sh", Args: []string{"sh", "-c", "(setsid sh -c 'echo $$ >&2; exec sleep 300' > /dev/null &)"}, Stderr: kf, Confine: true, Keep: true})
			if err != nil {
				t.Fatal(err)
			}
			p1.Wait()
			p, err := l.Start(launch.Spec{Path: "/bin/sh", Args: []string{"sh", "-c", "echo $$ >&2; exec sleep 300"}, Stderr: of, Confine: true})
			if err != nil {
				t.Fatal(err)
			}
			for range 3000 {
				if b, _ := os.ReadFile(kept); len(b) > 0 && b[len(b)-1] == '\n' {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			keptPid := testkit.ReadPID(t, kept)
			keptStart := testkit.Started(keptPid)
			t.Cleanup(func() { testkit.Kill(keptPid, keptStart, false) })
			abandon(l)
			testkit.WaitGone(t, p.Pid)
			time.Sleep(200 * time.Millisecond) // the launcher's end is done by now; the kept one must still run
			if testkit.ProcessGone(keptPid) {
				t.Error("a kept child's daemon was killed")
			}
		})
	}
}

// rootWithCgroup skips unless this machine lets the launcher make a cgroup.
func rootWithCgroup(t *testing.T) *cgroup {
	t.Helper()
	c := newCgroup(0)
	if c == nil || c.dir == "" {
		t.Skip("no cgroup v2 can be made here")
	}
	c.remove()
	return c
}

// With a cgroup, every child runs in the run's own cgroup, below the launcher's, and the
// launcher removes the cgroup once the run ended (after its answer: kimi-run need not wait
// for that).
func TestChildrenRunInTheRunsCgroup(t *testing.T) {
	rootWithCgroup(t)
	l := newLauncher(t, &launch.Launcher{})
	st, out, _ := run(t, l, launch.Spec{}, "cat /proc/self/cgroup")
	if !st.Success() {
		t.Fatal(out)
	}
	var path string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "0::") {
			path = strings.TrimPrefix(line, "0::")
		}
	}
	own, _ := ownCgroup("")
	if filepath.Dir(path) != own || !strings.HasPrefix(filepath.Base(path), namePrefix) {
		t.Fatalf("the child is in cgroup %q, want %s/%s*", path, own, namePrefix)
	}
	dir := filepath.Join(cgroupMounts().v2, path)
	l.Close()
	if !settle(time.Now().Add(5*time.Second), func() bool { _, err := os.Stat(dir); return os.IsNotExist(err) }) {
		t.Errorf("the run's cgroup %s is still there", dir)
	}
}

// A fork loop is stopped at the task limit, where a pids controller can be had: the shell
// (dash, which gives up at the first failed fork) counts the sleepers it made.
func TestTaskLimit(t *testing.T) {
	if !CanLimitTasks() {
		t.Skip("no pids controller can be had here")
	}
	l := newLauncher(t, &launch.Launcher{TaskLimit: 40})
	st, out, _ := run(t, l, launch.Spec{}, `n=0; while [ $n -lt 200 ]; do sleep 300 >/dev/null 2>&1 & n=$((n+1)); echo $n; done`)
	n := 0
	for _, line := range strings.Split(out, "\n") {
		if v, err := strconv.Atoi(line); err == nil {
			n = v
		}
	}
	if st.Success() || n >= 40 || n < 10 {
		t.Errorf("the fork loop made %d sleepers and ended with %s under a limit of 40 tasks: %q", n, st, out)
	}
}

// Where the task limit comes from a cgroup v1 pids hierarchy, only the launcher's serving
// thread joins the run's pids group (joinV1): every child, confined ones too, must still
// start in it, and the group must be gone once the run ended.
func TestV1PidsGroupHoldsEveryChild(t *testing.T) {
	m := cgroupMounts()
	if m.v1pids == "" || !CanLimitTasks() {
		t.Skip("no cgroup v1 pids hierarchy to join here")
	}
	if own, ok := ownCgroup(""); ok && m.v2 != "" && hasController(filepath.Join(m.v2, own), "pids") {
		t.Skip("the limit comes from cgroup v2 here")
	}
	work := t.TempDir()
	cases := []struct {
		name string
		l    *launch.Launcher
	}{
		{"plain", &launch.Launcher{TaskLimit: 100}},
		{"confined", &launch.Launcher{TaskLimit: 100, Environ: []string{"PATH=" + os.Getenv("PATH")},
			Policy: sandbox.Policy{Mode: sandbox.WorkspaceWrite, Writable: []string{work}, TempDir: t.TempDir()}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.l.Policy.Active() && sandbox.ABI() < 1 {
				t.Skip("needs Landlock")
			}
			l := newLauncher(t, c.l)
			// The grandchild is what a fork loop would make: it inherits the group too.
			st, out, _ := run(t, l, launch.Spec{Dir: work, Confine: true}, "sh -c 'cat /proc/self/cgroup'")
			if !st.Success() {
				t.Fatal(out)
			}
			var group string
			for _, line := range strings.Split(out, "\n") {
				if parts := strings.SplitN(line, ":", 3); len(parts) == 3 && slices.Contains(strings.Split(parts[1], ","), "pids") {
					group = parts[2]
				}
			}
			if !strings.HasPrefix(filepath.Base(group), namePrefix) {
				t.Fatalf("the command's pids group is %q, want the run's %s*:\n%s", group, namePrefix, out)
			}
			dir := filepath.Join(m.v1pids, group)
			l.Close()
			if !settle(time.Now().Add(5*time.Second), func() bool { _, err := os.Stat(dir); return os.IsNotExist(err) }) {
				t.Errorf("the run's pids group %s is still there", dir)
			}
		})
	}
}

// Confined children come from the confined arm: they cannot write outside the writable
// dirs nor signal anything outside their domain (this process, an outside sleeper), yet
// one confined child can signal another started earlier; and they get the sandbox's
// temp dir.
func TestConfinedChildren(t *testing.T) {
	if sandbox.ABI() < 6 {
		t.Skip("needs Landlock ABI 6 (the signal scope)")
	}
	work, tmp, outside := t.TempDir(), t.TempDir(), t.TempDir()
	l := newLauncher(t, &launch.Launcher{Environ: []string{"PATH=" + os.Getenv("PATH")},
		Policy: sandbox.Policy{Mode: sandbox.WorkspaceWrite, Writable: []string{work}, TempDir: tmp}})
	st, out, _ := run(t, l, launch.Spec{Dir: work, Confine: true}, "sleep 300 > /dev/null 2>&1 & echo $! > server.pid; echo $TMPDIR")
	if !st.Success() || strings.TrimSpace(out) != tmp {
		t.Fatalf("%s: %q, want the temp dir", st, out)
	}
	script := fmt.Sprintf(`touch %s/x 2>/dev/null && echo wrote; kill -0 %d 2>/dev/null && echo signalled; kill $(cat server.pid) && echo stopped`, outside, os.Getpid())
	st, out, _ = run(t, l, launch.Spec{Dir: work, Confine: true}, script)
	if strings.TrimSpace(out) != "stopped" {
		t.Errorf("%s: %q, want only the server stopped", st, out)
	}
}

// A background task's output is kept in a file up to its limit; the rest is read and
// counted, so the task never blocks on a full pipe, and Done says when the task and what
// it left have closed it.
func TestOutputFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "task.out")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	o, err := launch.OutputTee(f, 1000, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	l := newLauncher(t, &launch.Launcher{})
	p, err := l.Start(launch.Spec{Path: "/bin/sh", Args: []string{"sh", "-c", "head -c 200000 /dev/zero | tr '\\0' x; echo done >&2"}, Stdout: o.W, Stderr: o.W})
	o.Started()
	if err != nil {
		t.Fatal(err)
	}
	p.Wait()
	<-o.Done()
	written, dropped := o.Size()
	b, _ := os.ReadFile(path)
	if written != 1000 || dropped != 200005-1000 || len(b) != 1000 || strings.Trim(string(b), "x") != "" {
		t.Errorf("kept %d (file %d bytes), dropped %d", written, len(b), dropped)
	}
}

// A child started with Survive outlives the run with what it starts, unconfined and
// confined, while the run's other children end; Keep is not needed for it.
func TestSurvivorsOutliveTheRun(t *testing.T) {
	dir := t.TempDir()
	policies := []sandbox.Policy{{}}
	if sandbox.ABI() >= 1 {
		policies = append(policies, sandbox.Policy{Mode: sandbox.WorkspaceWrite, Writable: []string{dir}, TempDir: t.TempDir()})
	}
	for i, policy := range policies {
		for _, how := range []string{"close", "abandon"} {
			t.Run(fmt.Sprintf("confined=%v/%s", policy.Active(), how), func(t *testing.T) {
				task, other := filepath.Join(dir, fmt.Sprintf("task-%d-%s", i, how)), filepath.Join(dir, fmt.Sprintf("other-%d-%s", i, how))
				l := newLauncher(t, &launch.Launcher{Policy: policy})
				script := func(pidfile string) []string {
					return []string{"sh", "-c", "sleep 300 & echo $! > " + pidfile + ".tmp; mv " + pidfile + ".tmp " + pidfile + "; exec sleep 300"}
				}
				tp, err := l.Start(launch.Spec{Path: "/bin/sh", Args: script(task), Confine: true, Survive: true})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := l.Start(launch.Spec{Path: "/bin/sh", Args: script(other), Confine: true}); err != nil {
					t.Fatal(err)
				}
				waitFile(t, task)
				waitFile(t, other)
				taskChild := testkit.ReadPID(t, task)
				tpStart, childStart := testkit.Started(tp.Pid), testkit.Started(taskChild)
				t.Cleanup(func() { testkit.Kill(tp.Pid, tpStart, true); testkit.Kill(taskChild, childStart, false) })
				if how == "close" {
					l.Close()
				} else {
					abandon(l)
				}
				testkit.WaitGone(t, testkit.ReadPID(t, other))
				if testkit.ProcessGone(tp.Pid) || testkit.ProcessGone(taskChild) {
					t.Error("the task, or what it started, ended with the run")
				}
				// Its launcher gone, its Proc must not say it ended while it runs (the
				// task's watcher would then stop it: seen on CI as a task kept alive that
				// a SIGTERM from its own run ended), and must say so once it has.
				waitLinksGone(t, l)
				if tp.Exited() {
					t.Fatalf("the survivor's Proc ended (%s) while it runs", tp.Wait())
				}
				tp.Signal(true)
				syscall.Kill(taskChild, syscall.SIGKILL)
				select {
				case <-tp.Done():
					// Unconfined, nobody is left to tell how it ended; the survivors' arm,
					// which lives as long as kimi-run, still reports it.
					if st := tp.Wait(); st != unreported && st.String() != "signal: killed" {
						t.Errorf("ended as %q", st)
					}
				case <-time.After(30 * time.Second):
					t.Error("the survivor's Proc never ended after its group did")
				}
			})
		}
	}
}

// waitLinksGone waits (bounded) until kimi-run's links to the launcher and its arms have
// all failed, as they do once the launcher processes are gone.
func waitLinksGone(t *testing.T, l *launch.Launcher) {
	t.Helper()
	for range 3000 {
		proc(l).mu.Lock()
		up := false
		for _, k := range append([]*link{proc(l).rem.top}, proc(l).rem.box[:]...) {
			up = up || (k != nil && k.alive())
		}
		proc(l).mu.Unlock()
		if !up {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the launcher's links stayed up")
}

// A confined arm that stops answering (a confined command may SIGSTOP it: they share a
// Landlock domain) fails the start that waited for it, is killed through its process
// handle (never by a number that may have been reused since), and the next start gets a
// new arm.
func TestStoppedArmIsReplaced(t *testing.T) {
	l, spec := impatientArm(t)
	if st, out, _ := run(t, l, spec, "true"); !st.Success() {
		t.Fatalf("%s: %s", st, out)
	}
	proc(l).mu.Lock()
	arm := proc(l).rem.box[0].pid
	proc(l).mu.Unlock()
	armStart := testkit.Started(arm)
	t.Cleanup(func() { testkit.Kill(arm, armStart, false) })
	if err := syscall.Kill(arm, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Start(launch.Spec{Path: "/bin/true", Args: []string{"true"}, Dir: spec.Dir, Confine: true}); err == nil {
		t.Fatal("a start through a stopped arm succeeded")
	}
	testkit.WaitGone(t, arm)
	if st, out, _ := run(t, l, spec, "true"); !st.Success() {
		t.Fatalf("the start after the stopped arm: %s: %s", st, out)
	}
}

// The launcher is not ended by the signals that stop a run (it ends what the run leaves
// when kimi-run says so or is gone): once it has answered a start, SIGINT, SIGTERM,
// SIGHUP, SIGQUIT and SIGPIPE sent to it change nothing, and the next start works. It
// catches them beside its first start rather than before it (catchSignals).
func TestLauncherOutlivesRunSignals(t *testing.T) {
	l := newLauncher(t, &launch.Launcher{Environ: []string{"PATH=" + os.Getenv("PATH")}})
	if st, out, _ := run(t, l, launch.Spec{}, "true"); !st.Success() {
		t.Fatalf("%s: %s", st, out)
	}
	proc(l).mu.Lock()
	top := proc(l).rem.top
	proc(l).mu.Unlock()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGPIPE} {
		if err := top.proc.Signal(sig); err != nil {
			t.Fatalf("%s: %v", sig, err)
		}
	}
	st, out, _ := run(t, l, launch.Spec{}, "echo still")
	if !st.Success() || strings.TrimSpace(out) != "still" || !top.alive() {
		t.Fatalf("after the signals: %s %q, launcher alive %v", st, out, top.alive())
	}
}

// A launcher that stops answering a start (stopped from outside, or starved) is given up
// and the next start gets a new one, as a stopped arm is; but it is the ancestor of
// everything the run started, so what its children left — a setsid'd daemon here — is
// ended first. Killing it alone used to leave that to init.
func TestStoppedLauncherIsGivenUpWithItsTree(t *testing.T) {
	saved := topAnswer
	topAnswer = 2 * time.Second // a new launcher's start is within it: see impatientArm
	t.Cleanup(func() { topAnswer = saved })
	work := t.TempDir()
	l := newLauncher(t, &launch.Launcher{Environ: []string{"PATH=" + os.Getenv("PATH")}})
	daemon := filepath.Join(work, "daemon.pid")
	st, out, _ := run(t, l, launch.Spec{Dir: work}, `(setsid sh -c 'echo $$ > daemon.pid; exec sleep 300' > /dev/null 2>&1 &); until [ -s daemon.pid ]; do sleep 0.01; done`)
	if !st.Success() {
		t.Fatalf("%s: %s", st, out)
	}
	pid := testkit.ReadPID(t, daemon)
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	proc(l).mu.Lock()
	top := proc(l).rem.top.pid
	proc(l).mu.Unlock()
	topStart := testkit.Started(top)
	t.Cleanup(func() { testkit.Kill(top, topStart, false) })
	if err := syscall.Kill(top, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	// The start that waited is given up too (this one then starts from here, as when no
	// launcher can be had).
	if p, err := l.Start(launch.Spec{Path: "/bin/true", Args: []string{"true"}, Dir: work}); err == nil {
		p.Wait()
	}
	testkit.WaitGone(t, pid)
	testkit.WaitGone(t, top)
	if st, out, _ := run(t, l, launch.Spec{Dir: work}, "echo again"); !st.Success() || strings.TrimSpace(out) != "again" {
		t.Fatalf("the start after the stopped launcher: %s: %q", st, out)
	}
}

// A confined arm stopped while its child runs (a confined command may SIGSTOP it) reports
// no end: the wait on that child must still end, with the arm given up once it stayed
// stopped for the wait of an answer, and the next start gets a new arm.
func TestStoppedArmEndsTheWaitOnItsChildren(t *testing.T) {
	l, spec := impatientArm(t)
	// The command stops its parent, the arm, and exits once the arm is seen stopped (a
	// stop takes effect a moment after kill returns): its end is never reported.
	st, out, _ := run(t, l, spec, `p=$(awk '{print $4}' /proc/$$/stat); kill -STOP $p
for i in $(seq 2000); do grep -q '^State:.*T' /proc/$p/status && break; done; echo stopped`)
	if st.Success() || !strings.Contains(out, "stopped") {
		t.Fatalf("the wait ended with %s: %q", st, out)
	}
	if st, out, _ := run(t, l, spec, "echo again"); !st.Success() || strings.TrimSpace(out) != "again" {
		t.Fatalf("the start after the stopped arm: %s: %q", st, out)
	}
}

// impatientArm is a launcher whose confined commands run in a fresh work dir and whose
// confined arm is given up after 2 s without an answer or stopped (10 s in a run; it is
// restored after the test), for the tests that stop the arm. Not less: a new arm's start
// is within that wait, and took more than half a second on a loaded CI machine.
func impatientArm(t *testing.T) (*launch.Launcher, launch.Spec) {
	t.Helper()
	if sandbox.ABI() < 1 {
		t.Skip("needs Landlock")
	}
	saved := boxAnswer
	boxAnswer = 2 * time.Second
	t.Cleanup(func() { boxAnswer = saved })
	work := t.TempDir()
	l := newLauncher(t, &launch.Launcher{Environ: []string{"PATH=" + os.Getenv("PATH")},
		Policy: sandbox.Policy{Mode: sandbox.WorkspaceWrite, Writable: []string{work}, TempDir: t.TempDir()}})
	return l, launch.Spec{Dir: work, Confine: true}
}
