package scripts

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// peers.sh is run by hand when the machine is quiet (docs/performance.md, issue 31); this
// keeps it from rotting without installing any peer: PEERS=none times kimi-run alone
// against benchserver, one round, and needs neither npm nor the network.

// peersScript runs scripts/peers.sh with the given settings and a cache folder of the
// test's, and returns its stdout, its stderr and its exit code.
func peersScript(t *testing.T, settings ...string) (string, string, int) {
	t.Helper()
	cache := filepath.Join(t.TempDir(), "peers-cache")
	cmd := exec.Command("bash", "peers.sh")
	cmd.Env = append(os.Environ(), append([]string{"PEERS_CACHE=" + cache}, settings...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("peers.sh did not run: %v", err)
		}
		code = ee.ExitCode()
	}
	if _, err := os.Stat(cache); !os.IsNotExist(err) {
		t.Errorf("peers.sh without peers made the cache folder %s (%v)", cache, err)
	}
	return stdout.String(), stderr.String(), code
}

func TestPeersScriptTimesKimiRunAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds kimi-run and runs it")
	}
	stdout, stderr, code := peersScript(t, "PEERS=none", "N=1")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	// A row: case, version, median, min, runs; both kimi-run cases, timed once each.
	for _, name := range []string{`kimi-run`, `kimi-run --no-session`, `floor: timeout true`} {
		row := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` +.* +\d+\.\d +\d+\.\d +1$`)
		if !row.MatchString(stdout) {
			t.Errorf("no timed row for %q in:\n%s", name, stdout)
		}
	}
	for _, want := range []string{"no peer was timed", "load average before: ", "load average after: "} {
		if !bytes.Contains([]byte(stdout), []byte(want)) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
}

func TestPeersScriptRefusesBadSettings(t *testing.T) {
	for _, setting := range []string{"PEERS=gemini", "N=0", "N=many"} {
		stdout, stderr, code := peersScript(t, setting)
		if code != 2 || stdout != "" || !regexp.MustCompile(`^peers\.sh: .+\n$`).MatchString(stderr) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and one line on stderr", setting, code, stdout, stderr)
		}
	}
}
