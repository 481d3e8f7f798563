package run_test

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// TestStdinTimeoutOnCI: with CI=true the default --stdin-timeout is 10s instead of a
// minute; a flag given still wins (issue 21 #14). The notice names the timeout in force;
// the test closes stdin once it has seen it rather than wait the timeout out.
func TestStdinTimeoutOnCI(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ci   string
		args []string
		want string
	}{
		{name: "CI", ci: "true", want: "given up after 10s"},
		{name: "not CI", ci: "", want: "given up after 1m0s"},
		{name: "CI, flag given", ci: "true", args: []string{"--stdin-timeout", "2m"}, want: "given up after 2m0s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.Text("ok"))
			args := append([]string{"--no-session", "--stdin-notice", "10ms", "-w", t.TempDir(), "-p", "the prompt"}, tt.args...)
			cmd := exec.Command(binary, args...)
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "KIMI_API_KEY=" + testKey,
				"KIMI_MODEL_NAME=m", "KIMI_BASE_URL=" + srv.URL(), "KIMI_RUN_NO_ROOT_WARNING=1"}
			cmd.Env = append(cmd.Env, coverEnv()...)
			if tt.ci != "" {
				cmd.Env = append(cmd.Env, "CI="+tt.ci)
			}
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var seen []string
			sc := bufio.NewScanner(stderr)
			found := false
			for sc.Scan() {
				seen = append(seen, sc.Text())
				if strings.Contains(sc.Text(), "waiting for stdin") {
					found = strings.Contains(sc.Text(), tt.want)
					stdin.Close() // the producer ends: the run goes on with what it has
				}
			}
			if err := cmd.Wait(); err != nil {
				t.Fatalf("run failed: %v\n%s", err, strings.Join(seen, "\n"))
			}
			if !found {
				t.Errorf("no notice saying %q:\n%s", tt.want, strings.Join(seen, "\n"))
			}
		})
	}
}
