package run

import (
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scrub"
)

func TestChildEnviron(t *testing.T) {
	t.Parallel()
	var secrets scrub.Set
	secrets.Add("sk-config-file-key-123") // a config.toml api_key the environment overrides
	secrets.Add("short")                  // too short to be scrubbed or matched
	environ := []string{
		"PATH=/bin",
		"KIMI_API_KEY=sk-env-key-0123456789",
		"OPENAI_API_KEY=sk-other",
		"MOONSHOT_TOKEN=sk-config-file-key-123",
		"HEADER=Bearer sk-config-file-key-123",
		"GREETING=short",
		"EMPTY=",
	}
	tests := []struct {
		name string
		pass []string
		want string
	}{
		{name: "default", want: "PATH=/bin GREETING=short EMPTY="},
		{name: "passed by name", pass: []string{"KIMI_API_KEY", "HEADER"},
			want: "PATH=/bin KIMI_API_KEY=sk-env-key-0123456789 HEADER=Bearer sk-config-file-key-123 GREETING=short EMPTY="},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := strings.Join(childEnviron(environ, &secrets, tt.pass), " ")
			if got != tt.want {
				t.Errorf("childEnviron = %q, want %q", got, tt.want)
			}
		})
	}
}
