package run

import (
	"strings"
	"time"
)

// ciStdinTimeout is the default --stdin-timeout when the environment says it is CI. Runners
// that hand a job an open stdin which never sends anything would otherwise cost every job
// the full minute; a producer piped in front (`go test ./... | kimi-run -p …`) must start
// writing within it, or the job passes --stdin-timeout itself.
const ciStdinTimeout = 10 * time.Second

// onCI reports whether the CI variable says so, as GitHub Actions, GitLab CI, CircleCI,
// Travis, Buildkite and most others set it (CI=true; some use 1).
func onCI(getenv func(string) string) bool {
	switch strings.ToLower(strings.TrimSpace(getenv("CI"))) {
	case "true", "1", "yes":
		return true
	}
	return false
}

// defaultStdinTimeout shortens --stdin-timeout on CI unless it was given.
func defaultStdinTimeout(cli *CLI, getenv func(string) string) {
	if !cli.given["stdin-timeout"] && onCI(getenv) {
		cli.StdinTimeout = ciStdinTimeout
	}
}
