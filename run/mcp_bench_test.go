package run_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// BenchmarkMCPStartup is a one-answer run with MCP servers that take a given time to start
// (the stdio test server sleeps before serving). Servers start in parallel, so the run
// should cost the slowest server's delay plus a small fixed overhead per server, not the
// sum of the delays. Each case reports ms/mcp: its time per run minus that of the same run
// without servers, and for delayed servers ms/over-slowest: ms/mcp minus the slowest delay.
// Every iteration starts and stops the server processes; stopping is part of the run.
func BenchmarkMCPStartup(b *testing.B) {
	cases := []struct {
		name   string
		delays []time.Duration
	}{
		{"none", nil},
		{"1x0ms", []time.Duration{0}},
		{"3x0ms", []time.Duration{0, 0, 0}},
		{"1x300ms", []time.Duration{300 * time.Millisecond}},
		{"3x100-200-300ms", []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond}},
	}
	var base time.Duration
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			servers := map[string]any{}
			var slowest time.Duration
			for i, d := range c.delays {
				name := fmt.Sprintf("s%d", i+1)
				servers[name] = stdioServer(b, name, "-delay", d.String())
				slowest = max(slowest, d)
			}
			conf, _ := json.Marshal(map[string]any{"mcpServers": servers})
			args := []string{"--no-session", "--mcp-config", string(conf)}
			turn := []scripted.Response{scripted.Text("The benchmark is done.")}
			checkMCPConnected(b, turn, len(c.delays), args...)
			perRun := benchTurns(b, turn, 0, args...)
			if c.delays == nil {
				base = perRun
				return
			}
			if base > 0 {
				b.ReportMetric(float64(perRun-base)/1e6, "ms/mcp")
				if slowest > 0 {
					b.ReportMetric(float64(perRun-base-slowest)/1e6, "ms/over-slowest")
				}
			}
		})
	}
}

// checkMCPConnected runs once, untimed, and fails unless all n servers connected.
func checkMCPConnected(b *testing.B, turn []scripted.Response, n int, args ...string) {
	b.Helper()
	tb := &benchTB{TB: b}
	defer tb.close()
	var out bytes.Buffer
	benchRun(b, scripted.New(tb, turn...).URL(), b.TempDir(), &out, args...)
	first, _, _ := strings.Cut(out.String(), "\n")
	if got := strings.Count(first, `"status":"connected"`); got != n || strings.Contains(out.String(), `"type":"warning"`) {
		b.Fatalf("%d of %d MCP servers connected:\n%s", got, n, out.String())
	}
}

// BenchmarkMCPTestServerAlone starts the stdio test server with an empty stdin and waits for
// it to exit: its own start-up and exit, without kimi-run. It is the floor of the 1x0ms case
// of BenchmarkMCPStartup.
func BenchmarkMCPTestServerAlone(b *testing.B) {
	bin := mcpServer(b)
	for b.Loop() {
		if err := exec.Command(bin).Run(); err != nil {
			b.Fatal(err)
		}
	}
}
