package launch

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/sandbox"
)

// waitLink waits (bounded) for the launcher process pick chooses to be up, and returns it.
func waitLink(t *testing.T, l *Launcher, pick func(r *remote) *link) *link {
	t.Helper()
	for range 3000 {
		l.mu.Lock()
		k := pick(&l.rem)
		l.mu.Unlock()
		if k != nil && k.alive() {
			return k
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the launcher process never came up")
	return nil
}

// Warm starts the launcher process (and, for a confined start, its confined arm) before
// any child, without waiting for it; the first start then comes from what it started, and
// warming again starts nothing more.
func TestWarmStartsTheLauncherAhead(t *testing.T) {
	for _, confine := range []bool{false, true} {
		t.Run("confine="+strconv.FormatBool(confine), func(t *testing.T) {
			l := &Launcher{Environ: []string{"PATH=" + os.Getenv("PATH")}}
			if confine {
				if sandbox.ABI() < 1 {
					t.Skip("needs Landlock")
				}
				l.Policy = sandbox.Policy{Mode: sandbox.ReadOnly, TempDir: t.TempDir()}
			}
			newLauncher(t, l)
			l.Warm(confine)
			pick := func(r *remote) *link { return r.top }
			if confine {
				pick = func(r *remote) *link { return r.box[0] }
			}
			warmed := waitLink(t, l, pick)
			l.Warm(confine)
			st, out, _ := run(t, l, Spec{Confine: confine}, "echo $PPID")
			if !st.Success() || strings.TrimSpace(out) != strconv.Itoa(warmed.pid) {
				t.Errorf("%s: parent %q, want the warmed launcher %d", st, out, warmed.pid)
			}
			l.mu.Lock()
			again := pick(&l.rem)
			l.mu.Unlock()
			if again != warmed {
				t.Error("warming again started another launcher process")
			}
		})
	}
}

// Warm does nothing once the run has ended, and a launcher that could not start is
// reported by the first start that needs it, with the reason.
func TestWarmAfterCloseAndFailure(t *testing.T) {
	l := newLauncher(t, &Launcher{})
	l.Close()
	l.Warm(false)
	l.mu.Lock()
	top := l.rem.top
	l.mu.Unlock()
	if top != nil {
		t.Error("Warm after Close started a launcher process")
	}

	policy := sandbox.Policy{Mode: sandbox.ReadOnly, TempDir: t.TempDir()}
	bad := &Launcher{Exe: "/no/such/kimi-run", Policy: policy}
	bad.Warm(true)
	p, err := bad.Start(Spec{Path: "/bin/true", Confine: true})
	if err == nil {
		p.Wait()
		t.Fatal("a confined child started without a launcher")
	}
	if !strings.Contains(err.Error(), "no such file") {
		t.Errorf("the error does not say why the launcher did not start: %v", err)
	}
	if st, _, _ := run(t, bad, Spec{}, "true"); !st.Success() {
		t.Errorf("an unconfined child without a launcher: %s, want it started from this process", st)
	}
}
