package run

import (
	"context"
	"encoding/json"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/skills"
	"github.com/kimi-run/kimi-run/tools"
)

// TestPromptNamesTheShellShellRuns runs the real Shell tool and checks that the system
// prompt's "Shell used by the Shell tool" (KIMI_SHELL) names the program that ran the
// command: its $0 is the path Shell started. (On Windows the prompt used to say cmd while
// Shell ran bash or PowerShell; tools' TestPickShell covers that choice.)
func TestPromptNamesTheShellShellRuns(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("$0 is a POSIX shell's; PowerShell has no such variable")
	}
	dir := t.TempDir()
	shell := tools.NewShell(tools.Env{WorkDir: dir})
	args, _ := json.Marshal(map[string]string{"command": `printf '%s' "$0"`})
	res, err := shell.Run(context.Background(), args)
	if err != nil || res.IsError {
		t.Fatalf("Shell: %v %s", err, res.Output)
	}
	_, ran, _ := strings.Cut(res.Output, "\n")
	want := filepath.Base(ran) + " (`" + ran + "`)"
	if got := promptVars(dir, nil, &skills.Set{}, "", false)["KIMI_SHELL"]; got != want {
		t.Errorf("the prompt names the shell %q; Shell ran %q", got, want)
	}
}
