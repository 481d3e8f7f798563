package examples_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/google/jsonschema-go/jsonschema"
)

// The examples are checked against the schemas the real tools use, vendored in testdata/
// (sources and cuts in testdata/README.md): GitLab's CI schema, the one its pipeline editor
// and CI lint validate .gitlab-ci.yml with, and Kubernetes' OpenAPI models of batch/v1, the
// ones kubectl validates a Job with.

// compileSchema resolves the JSON Schema in file (draft-07 or 2020-12, as its $schema says).
func compileSchema(t *testing.T, file string) *jsonschema.Resolved {
	t.Helper()
	return resolve(t, file, read(t, file))
}

// compileOpenAPI resolves the schema named name among the components.schemas of the
// OpenAPI document in file. The validator follows references inside JSON Schema keywords
// only, so the components become $defs of a schema that refers to the one asked for. Every
// object schema that lists properties refuses others, as `kubectl apply --validate=strict`
// (the default) refuses unknown fields; Kubernetes' OpenAPI documents do not say so
// themselves.
func compileOpenAPI(t *testing.T, file, name string) *jsonschema.Resolved {
	t.Helper()
	var doc struct {
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(read(t, file), &doc); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	closeObjects(doc.Components.Schemas)
	defs, err := json.Marshal(map[string]any{"$defs": doc.Components.Schemas, "$ref": "#/components/schemas/" + name})
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return resolve(t, file, bytes.ReplaceAll(defs, []byte(`"#/components/schemas/`), []byte(`"#/$defs/`)))
}

func resolve(t *testing.T, file string, src []byte) *jsonschema.Resolved {
	t.Helper()
	var sch jsonschema.Schema
	if err := json.Unmarshal(src, &sch); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	r, err := sch.Resolve(nil)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return r
}

func closeObjects(v any) {
	switch v := v.(type) {
	case map[string]any:
		if _, ok := v["properties"].(map[string]any); ok {
			if _, set := v["additionalProperties"]; !set {
				v["additionalProperties"] = false
			}
		}
		for _, e := range v {
			closeObjects(e)
		}
	case []any:
		for _, e := range v {
			closeObjects(e)
		}
	}
}

// instance reads YAML as the JSON value a validator sees.
func instance(t *testing.T, name string, src []byte) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(src, &v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var inst any
	if err := json.Unmarshal(b, &inst); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return inst
}

// schemaCase is a manifest, or a broken copy of one that the schema must refuse (which
// shows the check can fail).
type schemaCase struct {
	name, file  string
	from, to    string // the broken copy replaces from with to
	wantRefusal string // a part of the validator's message
}

type validator interface{ Validate(v any) error }

// gitlabExtended validates a GitLab CI document after resolving `extends` with hidden jobs:
// GitLab merges the base job's hashes into the job, the job's own keys winning.
type gitlabExtended struct{ sch *jsonschema.Resolved }

func (g gitlabExtended) Validate(v any) error {
	doc, ok := v.(map[string]any)
	if !ok {
		return g.sch.Validate(v)
	}
	out := map[string]any{}
	for k, job := range doc {
		m, ok := job.(map[string]any)
		base, _ := m["extends"].(string)
		if !ok || base == "" {
			out[k] = job
			continue
		}
		parent, ok := doc[base].(map[string]any)
		if !ok {
			return fmt.Errorf("job %s extends %q, which the file does not define", k, base)
		}
		merged := deepMerge(parent, m)
		delete(merged, "extends")
		out[k] = merged
	}
	return g.sch.Validate(out)
}

func deepMerge(base, over map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		bm, ok1 := out[k].(map[string]any)
		om, ok2 := v.(map[string]any)
		if ok1 && ok2 {
			out[k] = deepMerge(bm, om)
		} else {
			out[k] = v
		}
	}
	return out
}

func runSchemaCases(t *testing.T, sch validator, cases []schemaCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := read(t, tc.file)
			if tc.from != "" {
				if !bytes.Contains(src, []byte(tc.from)) {
					t.Fatalf("%s has no %q to break", tc.file, tc.from)
				}
				src = bytes.Replace(src, []byte(tc.from), []byte(tc.to), 1)
			}
			err := sch.Validate(instance(t, tc.file, src))
			switch {
			case tc.wantRefusal == "" && err != nil:
				t.Errorf("%s does not match the schema: %v", tc.file, err)
			case tc.wantRefusal != "" && err == nil:
				t.Errorf("the schema accepts %s with %q in place of %q", tc.file, tc.to, tc.from)
			case tc.wantRefusal != "" && !strings.Contains(err.Error(), tc.wantRefusal):
				t.Errorf("refused for another reason than %q: %v", tc.wantRefusal, err)
			}
		})
	}
}

func TestGitLabCIMatchesGitLabsSchema(t *testing.T) {
	sch := compileSchema(t, "testdata/gitlab-ci.schema.json")
	// The schema lets a hidden job (.kimi-run) hold anything, as YAML anchors may; GitLab
	// checks what it becomes in the jobs that extend it, so merge those as GitLab does.
	runSchemaCases(t, gitlabExtended{sch}, []schemaCase{
		{name: "as shipped", file: "gitlab/gitlab-ci.yml"},
		// retry is a oneOf (a number, or an object with max, when and exit_codes); the
		// validator names the oneOf that failed, not the branch's own complaint.
		{name: "exit codes as a string", file: "gitlab/gitlab-ci.yml",
			from: "exit_codes: [75, 124]", to: `exit_codes: "75"`, wantRefusal: "/definitions/retry: oneOf"},
		{name: "a retry reason GitLab does not know", file: "gitlab/gitlab-ci.yml",
			from: "exit_codes: [75, 124]", to: "exit_codes: [75, 124]\n    when: [timeout_reached]", wantRefusal: "/definitions/retry: oneOf"},
	})
}

func TestKubernetesMatchesTheOpenAPIModels(t *testing.T) {
	const models = "testdata/k8s-batch-v1.openapi.json"
	job := compileOpenAPI(t, models, "io.k8s.api.batch.v1.Job")
	runSchemaCases(t, job, []schemaCase{
		{name: "job as shipped", file: "kubernetes/job.yaml"},
		{name: "job without a condition status", file: "kubernetes/job.yaml",
			from: "            status: \"True\"\n", to: "", wantRefusal: "status"},
		{name: "job with an unknown field", file: "kubernetes/job.yaml",
			from: "backoffLimitPerIndex: 2", to: "backoffLimitPerIndex: 2\n  retryLimit: 2", wantRefusal: "retryLimit"},
	})
	cron := compileOpenAPI(t, models, "io.k8s.api.batch.v1.CronJob")
	runSchemaCases(t, cron, []schemaCase{
		{name: "cronjob as shipped", file: "kubernetes/cronjob.yaml"},
		{name: "cronjob with exit codes as strings", file: "kubernetes/cronjob.yaml",
			from: "values: [1, 2, 3, 4, 5, 6, 7, 8, 9]", to: `values: ["1"]`, wantRefusal: "values"},
	})
}
