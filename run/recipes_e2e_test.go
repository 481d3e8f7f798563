package run_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// TestREADMERecipesRun runs every command line of the README's recipes as written, with
// bash (pipefail) in a git checkout, against a scripted model: each must exit 0. The CI
// job and record-and-replay recipes have tests of their own (TestREADMERecommendedCIInvocation,
// TestREADMERecordReplayRecipe). Lines of one recipe run in order in one checkout and HOME,
// so a --continue finds the session the line before it wrote.
func TestREADMERecipesRun(t *testing.T) {
	t.Parallel()
	needBash(t)
	recipes := testkit.DocSection(t, filepath.Join("..", "README.md"), "## Recipes")
	ran := 0
	for _, recipe := range strings.Split(recipes, "\n### ")[1:] {
		title, body, _ := strings.Cut(recipe, "\n")
		if title == "A CI job" || title == "Record and replay" {
			continue
		}
		lines := recipeLines(body)
		if len(lines) == 0 {
			continue
		}
		ran++
		t.Run(title, func(t *testing.T) {
			t.Parallel()
			dir := gitRepo(t, map[string]string{"go.mod": "module example.com/w\n", "report.schema.json": `{"type":"object"}`})
			home := t.TempDir()
			for i, line := range lines {
				if strings.Contains(line, "--sandbox ") {
					needLandlock(t, 4)
				}
				if strings.Contains(line, "| jq") {
					if _, err := exec.LookPath("jq"); err != nil {
						t.Skip("the recipe uses jq")
					}
				}
				reply := []scripted.Response{scripted.Text("done")}
				switch {
				case strings.Contains(line, "--json-schema"):
					reply = []scripted.Response{scripted.Text(`{"files":[]}`)}
				case strings.Contains(line, "--ralph"):
					reply = []scripted.Response{scripted.Text("one"), scripted.Text("Done. <choice>STOP</choice>")}
				}
				srv := scripted.New(t, reply...)
				cmd := exec.Command("bash", "-o", "pipefail", "-c", line)
				cmd.Dir = dir
				cmd.Env = append([]string{
					"PATH=" + filepath.Dir(binary) + string(os.PathListSeparator) + os.Getenv("PATH"),
					"HOME=" + home, "KIMI_API_KEY=" + testKey, "KIMI_MODEL_NAME=test-model", "KIMI_BASE_URL=" + srv.URL(),
					"KIMI_RUN_NO_ROOT_WARNING=1",
				}, coverEnv()...)
				if r := runCmd(t, cmd); r.code != 0 {
					t.Fatalf("line %s: %s\nexit %d\nstdout:\n%s\nstderr:\n%s", strconv.Itoa(i+1), line, r.code, r.stdout, r.stderr)
				}
			}
		})
	}
	if ran < 7 {
		t.Errorf("ran the commands of %d recipes, want at least 7", ran)
	}
}

// recipeLines returns the command lines of the sh blocks of one recipe, a line ending in
// a backslash joined with the next.
func recipeLines(body string) []string {
	var out []string
	for _, block := range strings.Split(body, "```sh\n")[1:] {
		block, _, _ = strings.Cut(block, "```")
		block = strings.ReplaceAll(block, "\\\n", "")
		for line := range strings.SplitSeq(block, "\n") {
			if strings.TrimSpace(line) != "" {
				out = append(out, line)
			}
		}
	}
	return out
}
