// Package examples holds the CI manifests of docs/ci.md: GitHub Actions workflows, a
// Kubernetes Job and CronJob, a GitLab CI file. This test keeps them valid YAML with the
// fields that make them work: exit codes mapped to retries, --timeout below the engine's
// deadline, the session directory kept.
package examples_test

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goccy/go-yaml"
)

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.FromSlash(path))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decode(t *testing.T, path string, v any) {
	t.Helper()
	if err := yaml.Unmarshal(read(t, path), v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// Exit codes by what a retry can do about them (docs/ci.md).
var (
	retried = []int{75, 124}
	fatal   = []int{1, 2, 3, 4, 5, 6, 7, 8, 9}
)

func TestEveryExampleIsYAMLAndDocumented(t *testing.T) {
	doc := string(read(t, "../docs/ci.md"))
	var files []string
	filepath.Walk(".", func(p string, info os.FileInfo, err error) error {
		if err == nil && (strings.HasSuffix(p, ".yml") || strings.HasSuffix(p, ".yaml")) {
			files = append(files, filepath.ToSlash(p))
		}
		return nil
	})
	if len(files) < 5 {
		t.Fatalf("only %d manifests: %v", len(files), files)
	}
	for _, f := range files {
		var v map[string]any
		decode(t, f, &v)
		if len(v) == 0 {
			t.Errorf("%s is empty", f)
		}
		if !strings.Contains(doc, "examples/"+f) {
			t.Errorf("docs/ci.md does not mention examples/%s", f)
		}
	}
}

// --- Kubernetes

type container struct {
	Name         string   `yaml:"name"`
	Command      []string `yaml:"command"`
	Args         []string `yaml:"args"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
}

type jobSpec struct {
	BackoffLimit          *int   `yaml:"backoffLimit"`
	BackoffLimitPerIndex  *int   `yaml:"backoffLimitPerIndex"`
	CompletionMode        string `yaml:"completionMode"`
	Completions           *int   `yaml:"completions"`
	Parallelism           *int   `yaml:"parallelism"`
	ActiveDeadlineSeconds int    `yaml:"activeDeadlineSeconds"`
	PodFailurePolicy      struct {
		Rules []struct {
			Action      string `yaml:"action"`
			OnExitCodes *struct {
				ContainerName string `yaml:"containerName"`
				Operator      string `yaml:"operator"`
				Values        []int  `yaml:"values"`
			} `yaml:"onExitCodes"`
			OnPodConditions []struct {
				Type   string `yaml:"type"`
				Status string `yaml:"status"`
			} `yaml:"onPodConditions"`
		} `yaml:"rules"`
	} `yaml:"podFailurePolicy"`
	Template struct {
		Spec struct {
			RestartPolicy string      `yaml:"restartPolicy"`
			Containers    []container `yaml:"containers"`
			Volumes       []struct {
				Name                  string `yaml:"name"`
				PersistentVolumeClaim *struct {
					ClaimName string `yaml:"claimName"`
				} `yaml:"persistentVolumeClaim"`
			} `yaml:"volumes"`
		} `yaml:"spec"`
	} `yaml:"template"`
}

// flag returns the value of --name=value in args.
func flag(args []string, name string) string {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v
		}
	}
	return ""
}

func checkJob(t *testing.T, file string, spec jobSpec, failAction string) {
	t.Helper()
	if spec.Template.Spec.RestartPolicy != "Never" {
		t.Errorf("%s: restartPolicy %q; podFailurePolicy needs Never", file, spec.Template.Spec.RestartPolicy)
	}
	var agent *container
	for i, c := range spec.Template.Spec.Containers {
		if len(c.Command) > 0 && c.Command[0] == "kimi-run" {
			agent = &spec.Template.Spec.Containers[i]
		}
	}
	if agent == nil {
		t.Fatalf("%s: no container runs kimi-run", file)
	}
	var failCodes []int
	disruption := false
	for _, r := range spec.PodFailurePolicy.Rules {
		if r.OnExitCodes != nil {
			if r.OnExitCodes.ContainerName != agent.Name {
				t.Errorf("%s: a rule names container %q, kimi-run runs in %q", file, r.OnExitCodes.ContainerName, agent.Name)
			}
			if r.Action == failAction && r.OnExitCodes.Operator == "In" {
				failCodes = append(failCodes, r.OnExitCodes.Values...)
			}
		}
		for _, c := range r.OnPodConditions {
			// status defaults to True only in newer API servers; older ones require it.
			disruption = disruption || (c.Type == "DisruptionTarget" && c.Status == "True" && r.Action == "Ignore")
		}
	}
	for _, c := range fatal {
		if !slices.Contains(failCodes, c) {
			t.Errorf("%s: exit %d is retried; a retry cannot fix it (%s it)", file, c, failAction)
		}
	}
	for _, c := range retried {
		if slices.Contains(failCodes, c) {
			t.Errorf("%s: exit %d fails at once; it is the one to retry", file, c)
		}
	}
	if !disruption {
		t.Errorf("%s: an evicted pod counts as a failure (Ignore DisruptionTarget, status True)", file)
	}
	timeout, err := time.ParseDuration(flag(agent.Args, "timeout"))
	if err != nil {
		t.Fatalf("%s: kimi-run has no --timeout=DURATION: %v", file, err)
	}
	if deadline := time.Duration(spec.ActiveDeadlineSeconds) * time.Second; deadline <= timeout {
		t.Errorf("%s: --timeout %s is not below activeDeadlineSeconds (%s)", file, timeout, deadline)
	}
	checkDeadline(t, file, spec, timeout)
	dir := flag(agent.Args, "session-dir")
	mounted := false
	for _, m := range agent.VolumeMounts {
		if m.MountPath != dir {
			continue
		}
		for _, v := range spec.Template.Spec.Volumes {
			mounted = mounted || (v.Name == m.Name && v.PersistentVolumeClaim != nil)
		}
	}
	if dir == "" || !mounted {
		t.Errorf("%s: --session-dir %q is not on a persistent volume", file, dir)
	}
	if flag(agent.Args, "session") == "" {
		t.Errorf("%s: no --session: a retried pod would start over", file)
	}
}

func TestKubernetesJob(t *testing.T) {
	var job struct {
		Kind string  `yaml:"kind"`
		Spec jobSpec `yaml:"spec"`
	}
	decode(t, "kubernetes/job.yaml", &job)
	if job.Kind != "Job" || job.Spec.CompletionMode != "Indexed" || job.Spec.BackoffLimitPerIndex == nil {
		t.Errorf("kind %q, completionMode %q: want an Indexed Job with backoffLimitPerIndex (FailIndex needs it)", job.Kind, job.Spec.CompletionMode)
	}
	checkJob(t, "kubernetes/job.yaml", job.Spec, "FailIndex")
}

func TestKubernetesCronJob(t *testing.T) {
	var cron struct {
		Kind string `yaml:"kind"`
		Spec struct {
			Schedule          string `yaml:"schedule"`
			ConcurrencyPolicy string `yaml:"concurrencyPolicy"`
			JobTemplate       struct {
				Spec jobSpec `yaml:"spec"`
			} `yaml:"jobTemplate"`
		} `yaml:"spec"`
	}
	decode(t, "kubernetes/cronjob.yaml", &cron)
	if cron.Kind != "CronJob" || len(strings.Fields(cron.Spec.Schedule)) != 5 {
		t.Errorf("kind %q, schedule %q", cron.Kind, cron.Spec.Schedule)
	}
	if cron.Spec.ConcurrencyPolicy != "Forbid" {
		t.Errorf("concurrencyPolicy %q: two nights at once would share work", cron.Spec.ConcurrencyPolicy)
	}
	if cron.Spec.JobTemplate.Spec.BackoffLimit == nil || *cron.Spec.JobTemplate.Spec.BackoffLimit < 1 {
		t.Errorf("no backoffLimit: exit 75 would never be retried")
	}
	checkJob(t, "kubernetes/cronjob.yaml", cron.Spec.JobTemplate.Spec, "FailJob")
}

// --- GitLab

func TestGitLabCI(t *testing.T) {
	type gitlabJob struct {
		Timeout string `yaml:"timeout"`
		Retry   struct {
			Max       int   `yaml:"max"`
			ExitCodes []int `yaml:"exit_codes"`
			When      any   `yaml:"when"`
		} `yaml:"retry"`
		Artifacts struct {
			When  string   `yaml:"when"`
			Paths []string `yaml:"paths"`
		} `yaml:"artifacts"`
		Extends  string   `yaml:"extends"`
		Script   []string `yaml:"script"`
		Parallel struct {
			Matrix []map[string][]string `yaml:"matrix"`
		} `yaml:"parallel"`
	}
	var ci struct {
		Stages []string  `yaml:"stages"`
		Base   gitlabJob `yaml:".kimi-run"`
		Agent  gitlabJob `yaml:"agent"`
	}
	decode(t, "gitlab/gitlab-ci.yml", &ci)
	base, job := ci.Base, ci.Agent
	if job.Extends != ".kimi-run" || len(job.Parallel.Matrix) == 0 {
		t.Fatalf("the agent job does not extend .kimi-run with a parallel matrix")
	}
	if base.Retry.Max < 1 || !slices.Equal(base.Retry.ExitCodes, retried) {
		t.Errorf("retry %+v: want exit codes %v retried", base.Retry, retried)
	}
	// GitLab retries when the failure reason OR the exit code matches: any `when` (even
	// script_failure) would also retry the exit codes a retry cannot fix.
	if base.Retry.When != nil {
		t.Errorf("retry.when %v: GitLab would retry every such failure, whatever the exit code", base.Retry.When)
	}
	if base.Artifacts.When != "always" || !slices.Contains(base.Artifacts.Paths, ".kimi-sessions/") {
		t.Errorf("artifacts %+v: the sessions must be kept on failure too", base.Artifacts)
	}
	script := strings.Join(job.Script, " ")
	m := regexp.MustCompile(`--timeout (\S+)`).FindStringSubmatch(script)
	if m == nil {
		t.Fatalf("the script runs kimi-run without --timeout: %s", script)
	}
	timeout, _ := time.ParseDuration(m[1])
	deadline, err := time.ParseDuration(base.Timeout)
	if err != nil || deadline <= timeout {
		t.Errorf("--timeout %s is not below the job's timeout %q", m[1], base.Timeout)
	}
	if !strings.Contains(script, `--session-dir "$SESSIONS"`) {
		t.Errorf("the script keeps no session: %s", script)
	}
}

// --- GitHub Actions

type workflow struct {
	Jobs map[string]struct {
		TimeoutMinutes int `yaml:"timeout-minutes"`
		Steps          []struct {
			ID              string            `yaml:"id"`
			If              string            `yaml:"if"`
			Uses            string            `yaml:"uses"`
			With            map[string]string `yaml:"with"`
			ContinueOnError bool              `yaml:"continue-on-error"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

type action struct {
	Inputs  map[string]struct{ Default string } `yaml:"inputs"`
	Outputs map[string]struct {
		Value string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []struct {
			ID   string            `yaml:"id"`
			If   string            `yaml:"if"`
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			Env  map[string]string `yaml:"env"`
			With map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

func loadAction(t *testing.T) action {
	t.Helper()
	var a action
	decode(t, "../action.yml", &a)
	return a
}

func TestGitHubWorkflows(t *testing.T) {
	a := loadAction(t)
	for _, f := range []string{"github/review.yml", "github/fleet.yml", "github/nightly-fix.yml", "../.github/workflows/ci.yml"} {
		var w workflow
		decode(t, f, &w)
		used := false
		for name, job := range w.Jobs {
			for _, s := range job.Steps {
				if !strings.HasPrefix(s.Uses, "kimi-run/kimi-run@") && s.Uses != "./" {
					continue
				}
				used = true
				// actionlint checks a local action's inputs, not a remote one's: do it here.
				for in := range s.With {
					if _, ok := a.Inputs[in]; !ok {
						t.Errorf("%s: job %s passes input %q, which action.yml does not have", f, name, in)
					}
				}
				if d, ok := s.With["timeout"]; ok {
					timeout, err := time.ParseDuration(d)
					if err != nil || job.TimeoutMinutes == 0 || time.Duration(job.TimeoutMinutes)*time.Minute <= timeout {
						t.Errorf("%s: job %s: timeout input %q is not below timeout-minutes %d", f, name, d, job.TimeoutMinutes)
					}
				}
			}
		}
		if !used {
			t.Errorf("%s does not use the action", f)
		}
	}
}

func TestFleetRetriesByExitCode(t *testing.T) {
	var w workflow
	decode(t, "github/fleet.yml", &w)
	steps := w.Jobs["agent"].Steps
	var first, retry, judge bool
	var with [2]map[string]string
	for _, s := range steps {
		switch s.ID {
		case "first":
			first = s.ContinueOnError
			with[0] = s.With
		case "retry":
			with[1] = s.With
			for _, c := range retried {
				retry = strings.Contains(s.If, "steps.first.outputs.exit-code == '"+strconv.Itoa(c)+"'")
				if !retry {
					break
				}
			}
		}
		judge = judge || (s.If == "always()" && s.Uses == "")
	}
	if !first || !retry || !judge {
		t.Errorf("fleet.yml: first attempt continue-on-error %v, retry on %v %v, a final judge %v", first, retried, retry, judge)
	}
	// docs/ci.md: every retry runs the same command, which continues the unfinished turn.
	if !maps.Equal(with[0], with[1]) {
		t.Errorf("fleet.yml: the retry is not the first attempt's command:\n%v\n%v", with[0], with[1])
	}
}

// TestActionMetadata checks what actionlint does not: the composite steps.
func TestActionMetadata(t *testing.T) {
	a := loadAction(t)
	if a.Runs.Using != "composite" {
		t.Errorf("runs.using = %q", a.Runs.Using)
	}
	for _, in := range []string{"prompt", "prompt-file", "model", "base-url", "api-key", "ralph", "timeout", "output-format", "args", "version", "build-from-source"} {
		if _, ok := a.Inputs[in]; !ok {
			t.Errorf("no input %q", in)
		}
	}
	raw := string(read(t, "../action.yml"))
	for _, m := range regexp.MustCompile(`inputs\.([a-z-]+)`).FindAllStringSubmatch(raw, -1) {
		if _, ok := a.Inputs[m[1]]; !ok {
			t.Errorf("action.yml uses inputs.%s, which it does not declare", m[1])
		}
	}
	script := string(read(t, "../scripts/action-run.sh"))
	for _, out := range []string{"exit-code", "session-id", "result-file"} {
		if _, ok := a.Outputs[out]; !ok {
			t.Errorf("no output %q", out)
		}
	}
	for _, m := range regexp.MustCompile(`steps\.run\.outputs\.([a-z-]+)`).FindAllStringSubmatch(raw, -1) {
		if !strings.Contains(script, `echo "`+m[1]+`=`) && !strings.Contains(script, m[1]+`<<`) {
			t.Errorf("action.yml reads steps.run.outputs.%s, which scripts/action-run.sh never writes", m[1])
		}
	}
	var upload bool
	for _, s := range a.Runs.Steps {
		if strings.HasPrefix(s.Uses, "actions/upload-artifact@") {
			upload = strings.HasPrefix(s.If, "always()") && s.With["path"] == "${{ steps.run.outputs.artifact-dir }}"
		}
		for _, sh := range regexp.MustCompile(`scripts/[a-z-]+\.sh`).FindAllString(s.Run, -1) {
			if _, err := os.Stat(filepath.Join("..", sh)); err != nil {
				t.Errorf("step %s runs %s: %v", s.ID, sh, err)
			}
		}
	}
	if !upload {
		t.Errorf("no upload-artifact step that runs always() on the artifact dir")
	}
}

// TestReviewReadsUntrustedDiffsSafely: the review example gives an untrusted diff to the
// agent, so it runs read-only and the checkout keeps no token the agent could read.
func TestReviewReadsUntrustedDiffsSafely(t *testing.T) {
	var w struct {
		Jobs map[string]struct {
			Steps []struct {
				Uses string         `yaml:"uses"`
				With map[string]any `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	decode(t, "github/review.yml", &w)
	var checkout, sandboxed bool
	for _, s := range w.Jobs["review"].Steps {
		if strings.HasPrefix(s.Uses, "actions/checkout@") {
			checkout = fmt.Sprint(s.With["persist-credentials"]) == "false"
		}
		if strings.HasPrefix(s.Uses, "kimi-run/kimi-run@") {
			sandboxed = strings.Contains(fmt.Sprint(s.With["args"]), "--sandbox read-only")
		}
	}
	if !checkout || !sandboxed {
		t.Errorf("review.yml: checkout persist-credentials false %v, kimi-run --sandbox read-only %v", checkout, sandboxed)
	}
}
