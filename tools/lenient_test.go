package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestLenientArgs: built-in tools take the near misses Kimi CLI's pydantic models take in
// lax mode (numeric strings and whole floats for integers, "true"/"false" for booleans,
// null for a parameter not given), and still refuse what does not fit.
func TestLenientArgs(t *testing.T) {
	type args struct {
		N    int    `json:"n,omitempty"`
		B    bool   `json:"b,omitempty"`
		S    string `json:"s,omitempty"`
		P    *int   `json:"p,omitempty" null:"true"`
		List []struct {
			On bool `json:"on"`
		} `json:"list,omitempty"`
	}
	var got args
	tool := New("LenientProbe", "probe", Facts{}, func(_ context.Context, in args) (Result, error) {
		got = in
		return Text("ran"), nil
	})
	for _, tc := range []struct {
		in   string
		want args
	}{
		{`{"n": "60", "b": "true", "s": "7"}`, args{N: 60, B: true, S: "7"}},
		{`{"n": 5.0, "b": "False", "s": null}`, args{N: 5}},
		{`{"n": " 12 ", "b": 1, "p": null}`, args{N: 12, B: true}},
		{`{"list": [{"on": "yes"}, {"on": "0"}]}`, args{List: []struct {
			On bool `json:"on"`
		}{{true}, {false}}}},
	} {
		got = args{}
		res, err := tool.Run(context.Background(), json.RawMessage(tc.in))
		if err != nil || res.IsError {
			t.Errorf("%s: %+v, %v", tc.in, res, err)
			continue
		}
		if g, _ := json.Marshal(got); string(g) != string(mustJSON(tc.want)) {
			t.Errorf("%s: decoded %s, want %s", tc.in, g, string(mustJSON(tc.want)))
		}
	}
	for _, in := range []string{`{"n": 5.5}`, `{"n": "five"}`, `{"b": "maybe"}`, `{"n": true}`} {
		res, err := tool.Run(context.Background(), json.RawMessage(in))
		if err != nil || !res.IsError || !strings.Contains(res.Output, "invalid arguments for LenientProbe") {
			t.Errorf("%s: want an invalid-arguments result, got %+v, %v", in, res, err)
		}
	}
}

// TestAskUserQuestion: every call is answered at once as dismissed, since nobody is there;
// questions and options out of Kimi's bounds are refused as Kimi's model refuses them.
func TestAskUserQuestion(t *testing.T) {
	tool := NewAskUserQuestion(Env{})
	res := runSearchTool(t, tool, map[string]any{"questions": []any{map[string]any{"question": "Which?", "options": []any{map[string]any{"label": "a"}, map[string]any{"label": "b"}}}}})
	if res.IsError || !strings.Contains(res.Output, `"answers": {}`) || !strings.Contains(res.Output, "Nobody is present") {
		t.Errorf("answer: %+v", res)
	}
	for _, args := range []string{`{"questions":[]}`, `{"questions":[{"question":"q","options":[{"label":"a"}]}]}`} {
		if res, _ := tool.Run(context.Background(), json.RawMessage(args)); !res.IsError {
			t.Errorf("%s: %+v", args, res)
		}
	}
}
