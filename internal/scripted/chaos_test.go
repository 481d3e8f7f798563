package scripted_test

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

func TestChaosIsReproducible(t *testing.T) {
	if !reflect.DeepEqual(scripted.Chaos(7), scripted.Chaos(7)) {
		t.Error("Chaos(7) differs between calls")
	}
	if reflect.DeepEqual(scripted.Chaos(7), scripted.Chaos(8)) {
		t.Error("Chaos(7) and Chaos(8) are the same script")
	}
}

// TestChaos drives a simple retrying go-openai client through many chaos
// scripts: it must end with the promised answer or permanent error after
// exactly Failures retries, and over all seeds every kind of trouble appears.
func TestChaos(t *testing.T) {
	seen := map[string]int{}
	for seed := range int64(40) {
		c := scripted.Chaos(seed)
		s := scripted.New(t, c.Responses...)
		cl := newClient(s.URL(), 1<<20)
		var last turn
		attempts := 0
		for attempts <= scripted.MaxChaosFailures {
			attempts++
			last = cl.stream(t.Context())
			seen[kind(last)]++
			if last.Finish == "stop" || isPermanent(last.Err) {
				break
			}
		}
		if attempts != c.Failures+1 {
			t.Errorf("seed %d: %d attempts, want %d", seed, attempts, c.Failures+1)
		}
		if c.Answer != "" && (last.Text != c.Answer || last.Err != "") {
			t.Errorf("seed %d: ended with %+v, want answer %q", seed, last, c.Answer)
		}
		if c.Answer == "" && !strings.HasPrefix(last.Err, "api "+strconv.Itoa(c.Status)) {
			t.Errorf("seed %d: ended with %+v, want status %d", seed, last, c.Status)
		}
	}
	t.Logf("outcomes over all seeds: %v", seen)
	for _, k := range []string{"answer", "permanent", "api 429", "api 500", "api 503", "unexpected EOF", "clean EOF"} {
		if seen[k] == 0 {
			t.Errorf("no seed produced %q (saw %v)", k, seen)
		}
	}
}

func isPermanent(err string) bool {
	for _, p := range []string{"api 400", "api 401", "api 403"} {
		if strings.HasPrefix(err, p) {
			return true
		}
	}
	return false
}

func kind(t turn) string {
	switch {
	case t.Finish == "stop":
		return "answer"
	case isPermanent(t.Err):
		return "permanent"
	case strings.HasPrefix(t.Err, "api "):
		return t.Err[:len("api 429")]
	case t.Err == "":
		return "clean EOF"
	}
	return t.Err
}
