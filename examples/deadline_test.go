package examples_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// checkDeadline: a Job's activeDeadlineSeconds must outlast every attempt kimi-run may make
// (so kimi-run's own --timeout, which keeps the session and says why, ends a slow run, not
// Kubernetes), and the comment above it must show that arithmetic with the file's numbers.
func checkDeadline(t *testing.T, file string, spec jobSpec, timeout time.Duration) {
	t.Helper()
	completions, parallelism, attempts := 1, 1, 1
	if spec.Completions != nil {
		completions = *spec.Completions
	}
	if spec.Parallelism != nil {
		parallelism = *spec.Parallelism
	}
	switch {
	case spec.BackoffLimitPerIndex != nil:
		attempts += *spec.BackoffLimitPerIndex
	case spec.BackoffLimit != nil:
		attempts += *spec.BackoffLimit
	default:
		attempts += 6 // the API's default backoffLimit
	}
	// Attempts of one index run one after another; parallelism pods run at once.
	rounds := (completions*attempts + parallelism - 1) / parallelism
	worst := time.Duration(rounds) * timeout
	deadline := time.Duration(spec.ActiveDeadlineSeconds) * time.Second
	if deadline < worst {
		t.Errorf("%s: activeDeadlineSeconds %d is below %d rounds x --timeout %s = %.0f s",
			file, spec.ActiveDeadlineSeconds, rounds, flagDuration(timeout), worst.Seconds())
	}
	comment := deadlineComment(t, file)
	for _, want := range []string{
		fmt.Sprintf("%d attempts", attempts),
		"--timeout " + flagDuration(timeout),
		fmt.Sprintf("= %.0f s", worst.Seconds()),
		fmt.Sprintf("= %d s", spec.ActiveDeadlineSeconds),
	} {
		if !strings.Contains(comment, want) {
			t.Errorf("%s: the comment above activeDeadlineSeconds does not say %q:\n%s", file, want, comment)
		}
	}
	if completions > 1 && !strings.Contains(comment, fmt.Sprintf("= %d rounds", rounds)) {
		t.Errorf("%s: the comment above activeDeadlineSeconds does not say %q:\n%s", file, fmt.Sprintf("= %d rounds", rounds), comment)
	}
}

// deadlineComment returns the comment lines right above activeDeadlineSeconds, joined.
func deadlineComment(t *testing.T, file string) string {
	t.Helper()
	lines := strings.Split(string(read(t, file)), "\n")
	for i, l := range lines {
		if !strings.HasPrefix(strings.TrimSpace(l), "activeDeadlineSeconds:") {
			continue
		}
		var c []string
		for j := i - 1; j >= 0 && strings.HasPrefix(strings.TrimSpace(lines[j]), "#"); j-- {
			c = append([]string{strings.TrimPrefix(strings.TrimSpace(lines[j]), "# ")}, c...)
		}
		return strings.Join(c, " ")
	}
	t.Fatalf("%s has no activeDeadlineSeconds", file)
	return ""
}

// flagDuration writes d as the examples write durations: 45m, 2h, 1h30m.
func flagDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
