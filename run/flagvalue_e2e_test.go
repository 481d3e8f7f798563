package run_test

import (
	"strings"
	"testing"
)

// TestFlagWithoutItsValue: a flag given last without its value says what it needs.
func TestFlagWithoutItsValue(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{args: []string{"-p", "x", "--max-steps"}, want: "kimi-run: --max-steps needs a number"},
		{args: []string{"-p", "x", "--timeout"}, want: "kimi-run: --timeout needs a duration (e.g. 30s, 10m)"},
		{args: []string{"-p", "x", "--output-format"}, want: "kimi-run: --output-format needs a value"},
	} {
		r := kimi(t, nil, invocation{args: tc.args})
		if r.code != 2 || !strings.HasPrefix(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}
