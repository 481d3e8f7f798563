package run_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// whatDiffersHeldBy names, for each bullet of docs/kimi-cli.md's "What differs" (by its bold title),
// the tests that hold what it says, as "package.TestName" (the package's directory from
// the repository's root). A bullet whose claims only Kimi CLI's code can check (what Kimi
// does) is held on kimi-run's side.
var whatDiffersHeldBy = map[string][]string{
	"Exit codes.":          {"run.TestExitCodes", "run.TestKimiPrintExitCodes", "run.TestKimiInputWithoutMessages", "run.TestTimeoutAndSignals", "run.TestUsageErrors"},
	"Text output":          {"output.TestTextFinalAnswer", "run.TestKimiFormatErrorsStayOffStdout"},
	"stdin with a prompt.": {"run.TestPromptSources"},
	"Sessions":             {"run.TestResumeWithSession", "run.TestContinueResumesTheLastSuccessfulRun", "session.TestSessionWritesKimiLayout"},
	"Precedence.":          {"run.TestKimiModelNamePrecedence", "config.TestPrecedence"},
	"Configuration errors are exit 2, not 1.": {"run.TestBadConfigFiles", "run.TestLoopControlRefusedBeforeAnyCall", "run.TestMCPConfigErrors"},
	"A blocked prompt is a failure.":          {"run.TestUserPromptSubmitHookBlocks", "run.TestUserPromptSubmitBlockKeepsStdoutClean"},
	"Hooks are waited for.":                   {"hooks.TestWrap", "run.TestBadHookIsAUsageError", "run.TestRunLifecycleHooks"},
	"The model reads kimi-run's tool texts.":  {"run.TestKimiStreamJSONShapes", "output.TestKimiGolden"},
	"Flows.":                                  {"ralph.TestPromptsAreOurOwnWords", "ralph.TestRalphFailsAfterFourInvalidChoices", "ralph.TestKimiFlowRefusals", "run.TestFlowSkillTakesARequest", "run.TestBrokenFlowIsAUsageError"},
	"A Kimi login.":                           {"run.TestKimiLogin", "run.TestKimiLoginRevoked"},
	"`--model NAME`":                          {"run.TestKimiModelNamePrecedence"},
	"Images and videos.":                      {"run.TestReadMediaFile", "run.TestReadMediaFileOtherEndpoints", "model.TestToolMediaRendering", "tools.TestReadMediaFileRefusals"},
	"Web services.":                           {"run.TestMoonshotServicesConfig", "tools.TestFetchURLWithService", "tools.TestSearchWeb"},
	"The config is checked.":                  {"config.TestKimiKeysNeverIgnoredSilently", "run.TestKimiConfigKeysAreNeverSilent", "model.TestReasoningKey"},
	"Not available:":                          {"run.TestNotAvailable"},
	"Tool parameters.":                        {"tools.TestKimiToolParity", "tools.TestSchemaBoundsAreTheCode", "tools.TestLenientArgs", "tools.TestSetTodoListWithoutTodos", "tools.TestAgentTimeoutStopsTheSubagent", "run.TestKimiToolsInPrintMode", "run.TestAgentModelUnderACostBudget", "run.TestPlanModeInPrintMode", "run.TestAgentTimeoutStopsTheSubagent"},
	"Plugins.":                                {"run.TestPluginTools", "run.TestPluginToolsConfined", "run.TestPluginProblemsAreWarnings", "tools/plugin.TestPluginToolKimiCases"},
	"Background tasks":                        {"run.TestBackgroundServerAndTaskTools", "run.TestBackgroundWaitCeiling", "run.TestBackgroundConfigKeys", "run.TestKimiBackgroundWaitRules"},
	// Issue 30's provider types, held by their clients' tests.
	"`anthropic` providers.":          {"model/anthropic.TestAnthropicHeaders", "model/anthropic.TestAnthropicThinkingAndMaxTokens", "model/anthropic.TestAnthropicStopReasons", "model/anthropic.TestAnthropicPauseTurnContinues"},
	"`openai_responses` providers":    {"model/responses.TestResponsesRequest", "model/responses.TestResponsesReply", "run.TestProtocolKimiLines"},
	"Gemini and Vertex AI providers.": {"model/gemini.TestGeminiURL", "model/gemini.TestGeminiThinkingConfig", "model/gemini.TestGeminiSendsTurnBack"},
}

// TestWhatDiffersIsHeld: every bullet of docs/kimi-cli.md's "What differs" names the tests that hold
// it, and those tests exist (issue 27 #4: every line of that section true, held by a test
// where one can check it). A new bullet, or a renamed test, fails here until the table
// above says what holds it.
func TestWhatDiffersIsHeld(t *testing.T) {
	section := testkit.DocSection(t, filepath.Join("..", "docs", "kimi-cli.md"), "## What differs")
	bullet := regexp.MustCompile(`(?m)^- \*\*(.+?)\*\*`)
	var titles []string
	for _, m := range bullet.FindAllStringSubmatch(section, -1) {
		titles = append(titles, m[1])
	}
	if len(titles) < 10 {
		t.Fatalf("found %d bullets in What differs: %q", len(titles), titles)
	}
	defined := map[string]bool{}
	for _, title := range titles {
		held, ok := whatDiffersHeldBy[title]
		if !ok {
			t.Errorf("docs/kimi-cli.md What differs bullet %q names no test that holds it (add it to whatDiffersHeldBy)", title)
			continue
		}
		for _, name := range held {
			pkg, fn, _ := strings.Cut(name, ".")
			if !defined[name] && !testExists(t, pkg, fn) {
				t.Errorf("bullet %q: no test %s in %s/", title, fn, pkg)
			}
			defined[name] = true
		}
	}
	for title := range whatDiffersHeldBy {
		if !slices.Contains(titles, title) {
			t.Errorf("whatDiffersHeldBy names %q, which is no longer a bullet of What differs", title)
		}
	}
}

// testExists reports whether a _test.go file of dir (from the repository's root) defines
// the test function fn.
func testExists(t *testing.T, dir, fn string) bool {
	files, _ := filepath.Glob(filepath.Join("..", dir, "*_test.go"))
	decl := regexp.MustCompile(`(?m)^func ` + regexp.QuoteMeta(fn) + `\(t \*testing\.T\)`)
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && decl.Match(b) {
			return true
		}
	}
	return false
}

// TestNotAvailable holds docs/kimi-cli.md's "Not available": Kimi CLI's other modes and plan mode are
// unknown flags (exit 2, before any model call), and KIMI_MODEL_THINKING_KEEP is named in a
// warning rather than ignored silently.
func TestNotAvailable(t *testing.T) {
	t.Parallel()
	for _, flag := range []string{"--acp", "--wire", "--plan"} {
		srv := scripted.New(t, scripted.Text("x"))
		r := kimi(t, srv, invocation{args: []string{flag, "-p", "hi"}})
		if r.code != 2 || !strings.Contains(r.stderr, "unknown flag "+flag) || len(srv.Requests()) != 0 {
			t.Errorf("%s: exit %d, stderr %q", flag, r.code, r.stderr)
		}
	}
	srv := scripted.New(t, scripted.Text("ok"))
	r := kimi(t, srv, invocation{env: map[string]string{"KIMI_MODEL_THINKING_KEEP": "all"}, args: []string{"-p", "hi"}})
	if r.code != 0 || !strings.Contains(r.stderr, "KIMI_MODEL_THINKING_KEEP (Moonshot's thinking.keep) is not supported by kimi-run: ignored") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	if body := srv.Requests()[0].Body; strings.Contains(stringify(body["thinking"]), "keep") {
		t.Errorf("thinking.keep was sent: %v", body["thinking"])
	}
}

func stringify(v any) string {
	if v == nil {
		return ""
	}
	s, _ := v.(string)
	if s != "" {
		return s
	}
	m, _ := v.(map[string]any)
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	return strings.Join(keys, ",")
}
