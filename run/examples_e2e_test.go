package run_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// The command lines of examples/ run as written, twice each (the first attempt and the
// retry that resumes its session), against the scripted server: a Kubernetes Job's args
// with its env substituted and its volumes as fresh, empty directories; GitLab's script
// through bash with kimi-run on PATH; a GitHub workflow's action inputs through the
// action's own script.

// k8sAgent is the container of a Kubernetes manifest that runs kimi-run.
type k8sAgent struct {
	Command    []string `yaml:"command"`
	Args       []string `yaml:"args"`
	WorkingDir string   `yaml:"workingDir"`
	Env        []struct {
		Name  string `yaml:"name"`
		Value string `yaml:"value"`
	} `yaml:"env"`
	VolumeMounts []struct {
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
}

// findAgent walks a decoded manifest for the container whose command is kimi-run.
func findAgent(v any) *k8sAgent {
	switch v := v.(type) {
	case map[string]any:
		if cmd, ok := v["command"].([]any); ok && len(cmd) > 0 && cmd[0] == "kimi-run" {
			b, _ := yaml.Marshal(v)
			var c k8sAgent
			if yaml.Unmarshal(b, &c) == nil {
				return &c
			}
		}
		for _, x := range v {
			if c := findAgent(x); c != nil {
				return c
			}
		}
	case []any:
		for _, x := range v {
			if c := findAgent(x); c != nil {
				return c
			}
		}
	}
	return nil
}

func TestKubernetesExamplesRunAsWritten(t *testing.T) {
	t.Parallel()
	// What the API server fills in from metadata (valueFrom).
	downward := map[string]string{"JOB_NAME": "kimi-run-nightly-29390457", "TASK": "3"}
	for _, file := range []string{"examples/kubernetes/cronjob.yaml", "examples/kubernetes/job.yaml"} {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			var manifest any
			if err := yaml.Unmarshal(repoFile(t, file), &manifest); err != nil {
				t.Fatal(err)
			}
			c := findAgent(manifest)
			if c == nil {
				t.Fatalf("%s: no container runs kimi-run", file)
			}
			vars := map[string]string{}
			for _, e := range c.Env {
				vars[e.Name] = e.Value
				if d, ok := downward[e.Name]; ok {
					vars[e.Name] = d
				}
			}
			// Every volume is a fresh, empty directory; the task files are the ConfigMap's.
			mounts := map[string]string{}
			for _, m := range c.VolumeMounts {
				mounts[m.MountPath] = t.TempDir()
			}
			if d, ok := mounts["/tasks"]; ok {
				os.WriteFile(filepath.Join(d, "task-3.md"), []byte("Fix the tests.\n"), 0o644)
			}
			args := append([]string(nil), c.Command[1:]...)
			for _, a := range c.Args {
				a = regexp.MustCompile(`\$\((\w+)\)`).ReplaceAllStringFunc(a, func(m string) string { return vars[m[2:len(m)-1]] })
				for mp, dir := range mounts {
					a = strings.ReplaceAll(a, "="+mp+"/", "="+dir+"/")
					if strings.HasSuffix(a, "="+mp) {
						a = strings.TrimSuffix(a, mp) + dir
					}
				}
				args = append(args, a)
			}
			for attempt := 1; attempt <= 2; attempt++ {
				srv := scripted.New(t, scripted.Text("All done. <choice>STOP</choice>").Forever())
				r := kimi(t, srv, invocation{args: args, dir: mounts[c.WorkingDir], env: map[string]string{"KIMI_MODEL_NAME": vars["KIMI_MODEL_NAME"]}})
				if r.code != 0 {
					t.Fatalf("attempt %d: kimi-run %s: exit %d\n%s", attempt, strings.Join(args, " "), r.code, r.stderr)
				}
			}
			if dir := mounts["/sessions"]; dir != "" {
				answers, _ := filepath.Glob(filepath.Join(dir, "*", "answer.md"))
				if len(answers) != 1 {
					t.Errorf("the answer files in the session volume: %v", answers)
				}
			}
		})
	}
}

func TestGitLabExampleRunsAsWritten(t *testing.T) {
	t.Parallel()
	needBash(t)
	var ci struct {
		Base struct {
			Variables map[string]string `yaml:"variables"`
		} `yaml:".kimi-run"`
		Agent struct {
			Script []string `yaml:"script"`
		} `yaml:"agent"`
	}
	if err := yaml.Unmarshal(repoFile(t, "examples/gitlab/gitlab-ci.yml"), &ci); err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.Symlink(binary, filepath.Join(bin, "kimi-run")); err != nil {
		t.Fatal(err)
	}
	project := t.TempDir()
	vars := map[string]string{"CI_PROJECT_DIR": project, "CI_PIPELINE_ID": "4711", "PACKAGE": "api"}
	for k, v := range ci.Base.Variables {
		vars[k] = os.Expand(v, func(k string) string { return vars[k] })
	}
	for attempt := 1; attempt <= 2; attempt++ {
		srv := scripted.New(t, scripted.Text("All done. <choice>STOP</choice>").Forever())
		cmd := exec.Command("bash", "-ec", strings.Join(ci.Agent.Script, "\n"))
		cmd.Dir = project
		cmd.Env = append(coverEnv(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+t.TempDir(),
			"KIMI_API_KEY="+testKey, "KIMI_BASE_URL="+srv.URL(), "KIMI_RUN_NO_ROOT_WARNING=1")
		for k, v := range vars {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		if r := checkNoKey(t, runCmd(t, cmd)); r.code != 0 {
			t.Fatalf("attempt %d: exit %d\n%s", attempt, r.code, r.stderr)
		}
	}
	if b, err := os.ReadFile(filepath.Join(project, "answer.md")); err != nil || !strings.HasPrefix(string(b), "All done.") {
		t.Errorf("answer.md: %q %v", b, err)
	}
}

func TestGitHubExamplesRunAsWritten(t *testing.T) {
	t.Parallel()
	needBash(t, "jq", "xargs")
	for _, file := range []string{"examples/github/fleet.yml", "examples/github/nightly-fix.yml", "examples/github/review.yml"} {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			var w struct {
				Jobs map[string]struct {
					Env   map[string]string `yaml:"env"`
					Steps []struct {
						Uses string            `yaml:"uses"`
						With map[string]string `yaml:"with"`
					} `yaml:"steps"`
				} `yaml:"jobs"`
			}
			if err := yaml.Unmarshal(repoFile(t, file), &w); err != nil {
				t.Fatal(err)
			}
			work, runner, home := checkoutLike(t), t.TempDir(), t.TempDir()
			os.WriteFile(filepath.Join(runner, "review-task.md"), []byte("Review this.\n"), 0o644)
			ctx := map[string]string{
				"secrets.KIMI_API_KEY": testKey, "matrix.package": "api", "github.run_id": "9001",
				"github.workspace": work, "runner.temp": runner,
			}
			expr := regexp.MustCompile(`\$\{\{\s*([\w.]+)\s*\}\}`)
			subst := func(s string) string {
				s = expr.ReplaceAllStringFunc(s, func(m string) string { return ctx[expr.FindStringSubmatch(m)[1]] })
				// The runner's home holds the Go caches the examples add to the sandbox.
				return strings.ReplaceAll(s, "/home/runner", home)
			}
			ran := 0
			for _, job := range w.Jobs {
				for k, v := range job.Env {
					ctx["env."+k] = subst(v)
				}
				for _, s := range job.Steps {
					if !strings.HasPrefix(s.Uses, "kimi-run/kimi-run@") {
						continue
					}
					ran++
					inputs := map[string]string{"KIMI_BASE_URL": "", "KIMI_RUN_NO_ROOT_WARNING": "1"}
					for k, v := range s.With {
						inputs["INPUT_"+strings.ToUpper(strings.ReplaceAll(k, "-", "_"))] = subst(v)
					}
					srv := scripted.New(t, scripted.Text("All done. <choice>STOP</choice>").Forever())
					inputs["KIMI_BASE_URL"] = srv.URL()
					r := runActionScript(t, work, inputs)
					if r.code != 0 || r.outputs["exit-code"] != "0" {
						t.Fatalf("step %d: exit %d, outputs %v\n%s", ran, r.code, r.outputs, r.stderr)
					}
				}
			}
			if ran == 0 {
				t.Fatalf("%s runs no kimi-run step", file)
			}
		})
	}
}
