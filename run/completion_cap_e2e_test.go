package run_test

import (
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// TestCompletionCapOnlyForKimiProviders follows Kimi CLI's
// tests/core/test_kimisoul_completion_budget.py: the request is sized with
// max_completion_tokens (the room left in the window) only when the provider is a `kimi`
// one; an `openai_legacy` provider with the same window gets no such field.
func TestCompletionCapOnlyForKimiProviders(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		typ     string
		wantCap bool
	}{
		{typ: "kimi", wantCap: true},
		{typ: "openai_legacy", wantCap: false},
	} {
		t.Run(tt.typ, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.Text("ok"))
			conf := strings.Replace(kimiTOML(srv.URL(), ""), `type = "kimi"`, `type = "`+tt.typ+`"`, 1)
			env := map[string]string{"HOME": kimiConfig(t, conf), "KIMI_MODEL_NAME": "", "KIMI_API_KEY": "", "KIMI_BASE_URL": ""}
			r := kimi(t, nil, invocation{env: env, args: []string{"-p", "x"}})
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			got, present := srv.Requests()[0].Body["max_completion_tokens"]
			if present != tt.wantCap {
				t.Errorf("max_completion_tokens = %v (present %v), want present %v", got, present, tt.wantCap)
			}
		})
	}
}
