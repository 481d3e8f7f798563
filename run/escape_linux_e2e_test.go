//go:build linux

package run_test

// The escape suite: issue 17's adversarial pass at --sandbox workspace-write and
// --sandbox-network off, one attempt per hole it found, each against the real binary and
// each asserting that the file or listener outside stayed untouched. A control run without
// the sandbox shows every network attempt works on this machine, so a refusal is the
// sandbox's doing and not the probe's failure.

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

var (
	probeOnce sync.Once
	probeBin  string
	probeErr  error
)

// escapeProbe returns the escape-probe command, built once next to the kimi-run binary.
func escapeProbe(t *testing.T) string {
	t.Helper()
	probeOnce.Do(func() {
		probeBin = filepath.Join(filepath.Dir(binary), "escape-probe")
		out, err := exec.Command("go", "build", "-o", probeBin, "../internal/escapetest/cmd/escape-probe").CombinedOutput()
		if err != nil {
			probeErr = &buildError{out: string(out), err: err}
		}
	})
	if probeErr != nil {
		t.Fatal(probeErr)
	}
	return probeBin
}

// pending reports whether a listener has a connection waiting (TCP) or a datagram queued
// (UDP), without waiting: loopback delivers both before the sender's call returns.
func pending(t *testing.T, c syscall.Conn, udp bool) bool {
	t.Helper()
	rc, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var got bool
	// Go keeps its sockets non-blocking: accept and recv answer at once.
	err = rc.Control(func(fd uintptr) {
		if udp {
			n, _, err := unix.Recvfrom(int(fd), make([]byte, 64), unix.MSG_DONTWAIT)
			got = err == nil && n > 0
			return
		}
		if nfd, _, err := unix.Accept4(int(fd), unix.SOCK_CLOEXEC); err == nil {
			unix.Close(nfd)
			got = true
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestEscapeNetwork(t *testing.T) {
	t.Parallel()
	needLandlock(t, 4)
	probe := escapeProbe(t)
	tcp, err := net.ListenTCP("tcp4", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	udp, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	attempts := map[string]string{
		"tfo":     probe + " tfo " + tcp.Addr().String(),
		"udp":     probe + " udp " + udp.LocalAddr().String(),
		"raw":     probe + " raw",
		"packet":  probe + " packet",
		"iouring": probe + " iouring",
	}
	run := func(t *testing.T, off bool) map[string]map[string]any {
		var calls []scripted.Part
		for id, cmd := range attempts {
			calls = append(calls, scripted.CallID(id, "Shell", fmt.Sprintf(`{"command":%q}`, cmd)))
		}
		srv := scripted.New(t, scripted.ToolCalls(calls...), scripted.Text("done"))
		args := []string{"--output-format", "stream-json", "-p", "x"}
		if off {
			args = append(args, "--sandbox-network", "off")
		}
		r := kimi(t, srv, invocation{args: args})
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		return results(events(t, r.stdout))
	}
	// The sandboxed run first, while the listeners have seen nothing.
	res := run(t, true)
	for id := range attempts {
		out, _ := res[id]["output"].(string)
		if res[id]["is_error"] != true || !strings.Contains(out, "escape-probe "+id+": ") || strings.Contains(out, ": done") {
			t.Errorf("%s was not refused: %v", id, res[id])
		}
	}
	if pending(t, tcp, false) {
		t.Errorf("a TCP Fast Open connection reached the listener with the network off")
	}
	if pending(t, udp, true) {
		t.Errorf("a UDP datagram reached the listener with the network off")
	}

	// The control: the same attempts without the sandbox.
	res = run(t, false)
	for id := range attempts {
		ok := res[id]["is_error"] == false
		switch {
		case ok:
		case id == "tfo" || id == "udp":
			t.Errorf("the control %s failed: %v", id, res[id])
		default:
			// Raw and packet sockets need root (CAP_NET_RAW), io_uring may be disabled
			// by sysctl: there the sandbox had nothing to refuse.
			t.Logf("the control %s failed too (%v): its refusal above proves nothing here", id, res[id]["output"])
		}
	}
	if !pending(t, tcp, false) {
		t.Errorf("the control TCP Fast Open connection never reached the listener")
	}
	if !pending(t, udp, true) {
		t.Errorf("the control UDP datagram never reached the listener")
	}
}

// xattrSupported reports whether dir's file system takes user extended attributes.
func xattrSupported(dir string) bool {
	p := filepath.Join(dir, ".xattr-probe")
	defer os.Remove(p)
	if os.WriteFile(p, nil, 0o644) != nil {
		return false
	}
	return unix.Setxattr(p, "user.kimi", []byte("x"), 0) == nil
}

// The file-system attempts, under --sandbox workspace-write, with kimi-run itself in the
// work dir (as after go build -o kimi-run .) and a hook script there too.
func TestEscapeFiles(t *testing.T) {
	t.Parallel()
	needLandlock(t, 1)
	probe := escapeProbe(t)
	root := t.TempDir()
	work, outside := filepath.Join(root, "work"), filepath.Join(root, "outside")
	for _, d := range []string{work, outside, filepath.Join(work, ".kimi", "hooks"), filepath.Join(work, "a")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	target := filepath.Join(outside, "target.txt")
	if err := os.WriteFile(target, []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(target, filepath.Join(work, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(work, "b")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, ".kimi", "hooks", "post.sh"), []byte("true\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	self := filepath.Join(work, "kimi-run")
	copyFile(t, binary, self, 0o755)
	cfg := hookConfig(t, `
[[hooks]]
event = "PostToolUse"
matcher = "Shell"
command = "sh .kimi/hooks/post.sh"
`)
	// Rewritten by the model: the hook script would touch a file outside, and kimi-run in
	// the work dir is replaced by a script that runs its command with no sandbox at all.
	rewrite := fmt.Sprintf(`printf 'touch %s/by-hook\n' > .kimi/hooks/post.sh && printf '#!/bin/sh\nshift 2\nexec "$@"\n' > new && chmod +x new && mv new kimi-run && head -c2 kimi-run`, outside)
	// 30 writes while a background process swaps the directory a/ with the link b/ to the
	// outside, as fast as it can: each write lands in a/ or fails.
	var writes []scripted.Part
	for i := range 30 {
		mode := "overwrite"
		if i%2 == 1 {
			mode = "append"
		}
		writes = append(writes, scripted.CallID(fmt.Sprintf("race%d", i), "WriteFile", fmt.Sprintf(`{"path":"a/f.txt","content":"x\n","mode":%q}`, mode)))
	}
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.CallID("rewrite", "Shell", fmt.Sprintf(`{"command":%q}`, rewrite))),
		scripted.ToolCalls(
			scripted.CallID("after", "Shell", fmt.Sprintf(`{"command":"touch %s/by-shell"}`, outside)),
			scripted.CallID("xattr", "Shell", fmt.Sprintf(`{"command":"%s setxattr %s"}`, probe, target)),
			scripted.CallID("hardlink", "WriteFile", `{"path":"link.txt","content":"appended\n","mode":"append"}`),
			scripted.CallID("swapper", "Shell", fmt.Sprintf(`{"command":"%s swap a b > swap.log 2>&1 & until [ -s swap.log ]; do sleep 0.01; done; cat swap.log"}`, probe)),
		),
		scripted.ToolCalls(writes...),
		scripted.Text("done"),
	)
	// root is HOME: outside stays in the commands' sight where they get a /tmp of their own.
	r := kimi(t, srv, invocation{dir: work, bin: self, env: map[string]string{"HOME": root}, args: append(cfg, "--output-format", "stream-json", "--sandbox", "workspace-write", "-p", "escape")})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	res := results(events(t, r.stdout))
	if out, _ := res["rewrite"]["output"].(string); res["rewrite"]["is_error"] != false || !strings.Contains(out, "#!") {
		t.Fatalf("the rewrite inside the work dir failed, so nothing was attempted: %v", res["rewrite"])
	}
	if out, _ := res["swapper"]["output"].(string); !strings.Contains(out, "swapping") {
		t.Fatalf("the swapper never swapped, so the race was not run: %v", res["swapper"])
	}
	for id, want := range map[string]string{"after": "Permission denied", "xattr": "not supported", "hardlink": "hard links"} {
		out, _ := res[id]["output"].(string)
		if id == "after" && res[id]["is_error"] == true && writeRefused(out) {
			continue
		}
		if res[id]["is_error"] != true || !strings.Contains(out, want) {
			t.Errorf("%s was not refused with %q: %v", id, want, res[id])
		}
	}
	// Outside: the target untouched, nothing new.
	if got, _ := os.ReadFile(target); string(got) != "outside\n" {
		t.Errorf("the outside file holds %q", got)
	}
	if xattrSupported(root) {
		if _, err := unix.Getxattr(target, "user.kimi", make([]byte, 64)); !errors.Is(err, unix.ENODATA) {
			t.Errorf("the outside file got an extended attribute (getxattr: %v)", err)
		}
	}
	entries, _ := os.ReadDir(outside)
	for _, e := range entries {
		if e.Name() != "target.txt" {
			t.Errorf("%s appeared outside the work dir", e.Name())
		}
	}
}
