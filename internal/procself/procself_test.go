package procself

import (
	"strings"
	"testing"
)

func TestMaskBlock(t *testing.T) {
	env := "PATH=/bin\x00KIMI_API_KEY=short\x00COPY=x-sk-secret-123-y\x00OPENAI_API_KEY=\x00HOME=/h\x00"
	tests := []struct {
		name  string
		block string
		forms []string
		vars  func(string) bool
		want  string
	}{
		{"credential variables and secrets anywhere", env, []string{"sk-secret-123"}, keyVar,
			"PATH=/bin\x00KIMI_API_KEY=*****\x00COPY=x-*************-y\x00OPENAI_API_KEY=\x00HOME=/h\x00"},
		{"every variable", env, nil, func(string) bool { return true },
			"PATH=****\x00KIMI_API_KEY=*****\x00COPY=*****************\x00OPENAI_API_KEY=\x00HOME=**\x00"},
		{"arguments: secrets only, each occurrence", "kimi-run\x00--config\x00{\"api_key\":\"sk-a\\\"b-9999\"} sk-a\"b-9999\x00", []string{`sk-a"b-9999`, `sk-a\"b-9999`}, nil,
			"kimi-run\x00--config\x00{\"api_key\":\"************\"} ***********\x00"},
		{"nothing to hide", "kimi-run\x00-p\x00x\x00", []string{"sk-none-00000"}, nil, "kimi-run\x00-p\x00x\x00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var forms [][]byte
			for _, f := range tt.forms {
				forms = append(forms, []byte(f))
			}
			b := []byte(tt.block)
			changed := maskBlock(b, forms, tt.vars)
			if string(b) != tt.want || changed != (tt.want != tt.block) {
				t.Errorf("got %q (changed %v)\nwant %q", b, changed, tt.want)
			}
			if len(b) != len(tt.block) || strings.Count(string(b), "\x00") != strings.Count(tt.block, "\x00") {
				t.Errorf("the block changed its shape")
			}
		})
	}
}

// BenchmarkHideSelfCopies is the part of hiding the process's secrets that costs more than
// a system call: copying the environment off its block (about 35 variables on a runner)
// and masking a block the size of a runner's environment.
func BenchmarkHideSelfCopies(b *testing.B) {
	block := []byte(strings.Repeat("SOME_VARIABLE=/usr/local/some/value/here\x00", 60) + "KIMI_API_KEY=sk-bench-key-0123456789\x00")
	forms := [][]byte{[]byte("sk-bench-key-0123456789"), []byte("sk-config-key-9876543210")}
	for b.Loop() {
		rehome(nil)
		maskBlock(block, forms, keyVar)
	}
}

// keyVar picks the variables a run reads keys from, as run's credential check does.
func keyVar(name string) bool { return name == "KIMI_API_KEY" || name == "OPENAI_API_KEY" }
