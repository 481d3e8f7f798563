package launcher

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/launch"
	"github.com/kimi-run/kimi-run/sandbox"
)

// In the arm's namespaces a confined child sees its own numbers and the namespace's init
// as process 1, while the launcher reports, signals and watches it by the machine's
// number: the same process, its group killed through it.
func TestConfinedChildInNamespaces(t *testing.T) {
	if sandbox.ABI() < 1 {
		t.Skip("needs Landlock")
	}
	work := t.TempDir()
	var mu sync.Mutex
	var warned []string
	l := newLauncher(t, &launch.Launcher{Environ: []string{"PATH=" + os.Getenv("PATH")},
		Warn:   func(s string) { mu.Lock(); warned = append(warned, s); mu.Unlock() },
		Policy: sandbox.Policy{Mode: sandbox.WorkspaceWrite, Writable: []string{work}, TempDir: t.TempDir(), Namespaces: true}})
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	p, err := l.Start(launch.Spec{Path: "/bin/sh", Args: []string{"sh", "-c", `sleep 300 & echo $$ $(tr '\0' ' ' < /proc/1/cmdline); wait`}, Dir: work, Stdout: w, Confine: true})
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(r).ReadString('\n')
	mu.Lock()
	if len(warned) > 0 {
		mu.Unlock()
		p.Signal(true)
		t.Skipf("no namespaces here: %q", warned)
	}
	mu.Unlock()
	f := strings.Fields(line)
	if len(f) < 3 || !strings.Contains(line, ServeArg+" "+roleInit) {
		t.Fatalf("the child's view: %q, want its number and the init as process 1", line)
	}
	status, err := os.ReadFile("/proc/" + strconv.Itoa(p.Pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	var nspid []string
	for _, l := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(l, "NSpid:"); ok {
			nspid = strings.Fields(rest)
		}
	}
	if len(nspid) != 2 || nspid[0] != strconv.Itoa(p.Pid) || nspid[1] != f[0] {
		t.Errorf("NSpid of %d: %q, want it and %s", p.Pid, nspid, f[0])
	}
	if !p.Alive() {
		t.Error("the child's group is not seen running")
	}
	if err := p.Signal(true); err != nil {
		t.Fatal(err)
	}
	if st := p.Wait(); st.Exited() {
		t.Errorf("the child ended with %s, want killed", st)
	}
	if !launch.WaitGone(time.Now().Add(10*time.Second), p) {
		t.Error("the child's group (its sleep) outlived the kill")
	}
}
