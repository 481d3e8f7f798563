package run_test

import (
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// TestKimiLogSwitches: Kimi CLI's --debug and --verbose are accepted (a Kimi script passing
// them must not die on exit 2); --debug is --log-level debug, which shows usage lines.
func TestKimiLogSwitches(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args      []string
		code      int
		stderrHas string
	}{
		{args: []string{"--debug"}, code: 0, stderrHas: "DBG turn 1"},
		{args: []string{"--verbose"}, code: 0},
		{args: []string{"--print", "--debug", "--verbose"}, code: 0},
		{args: []string{"--debug", "--log-level", "warn"}, code: 2, stderrHas: "--log-level"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.Text("ok"))
			r := kimi(t, srv, invocation{args: append(tt.args, "-p", "x")})
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d\n%s", r.code, tt.code, r.stderr)
			}
			if tt.stderrHas != "" && !strings.Contains(r.stderr, tt.stderrHas) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderrHas, r.stderr)
			}
		})
	}
}

// TestLoopControlRefusedBeforeAnyCall: a loop_control value Kimi CLI refuses (its
// tests/core/test_config.py *_too_low / *_too_high) stops the run before any model call,
// with exit 2 here (Kimi exits 1 on any config error; README "Coming from Kimi CLI").
func TestLoopControlRefusedBeforeAnyCall(t *testing.T) {
	t.Parallel()
	for _, lc := range []string{"reserved_context_size = 999", "compaction_trigger_ratio = 1.0", "compaction_trigger_ratio = 0.49"} {
		t.Run(lc, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.Text("ok"))
			home := kimiConfig(t, kimiTOML(srv.URL(), "")+"\n[loop_control]\n"+lc+"\n")
			r := kimi(t, nil, invocation{env: map[string]string{"HOME": home, "KIMI_MODEL_NAME": "", "KIMI_API_KEY": "", "KIMI_BASE_URL": ""}, args: []string{"-p", "x"}})
			key := strings.Fields(lc)[0]
			if r.code != 2 || !strings.Contains(r.stderr, key) {
				t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("%d model calls before the refusal", n)
			}
		})
	}
}
