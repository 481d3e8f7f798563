// Command firstrequest measures how long kimi-run takes from its start to its first model
// request, beside how long `kimi-run --version` takes from its start to its exit: the
// binary's own start-up. The difference is what a run's set-up costs before it asks the
// model anything (issue 31: at most 3 ms, medians of 9, on an idle machine).
//
// It serves a zero-latency chat-completions endpoint itself and notes when each request
// arrives (its headers read), then answers with one short streamed reply so that the run
// ends at once. Each iteration runs the cases one after another, in an order that is
// reversed every other iteration so that a change of load favours none; the table gives the
// median and minimum of each case, in ms, and the median of the per-iteration differences.
//
// Usage: firstrequest [-n 9] [-warmup 3] [-dir DIR] BINARY [BINARY...]
//
// Given several binaries (a build before a change and after it), each iteration runs every
// case of every binary, interleaved the same way, and the table has a block per binary:
// a comparison that a change of load cannot bias, on a machine that is never quite idle.
//
// The runs use DIR as their work dir (default: a new empty directory) and a temporary HOME
// and XDG_STATE_HOME, so sessions go nowhere that matters.
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

func main() {
	n := flag.Int("n", 9, "iterations (each runs every case once)")
	warmup := flag.Int("warmup", 3, "iterations run first and not counted")
	dir := flag.String("dir", "", "work dir of the runs (default: a new empty directory)")
	flag.Parse()
	if flag.NArg() < 1 {
		fmt.Fprintln(os.Stderr, "usage: firstrequest [-n 9] [-warmup 3] [-dir DIR] BINARY [BINARY...]")
		os.Exit(2)
	}
	if err := measure(flag.Args(), *dir, *n, *warmup); err != nil {
		fmt.Fprintln(os.Stderr, "firstrequest:", err)
		os.Exit(1)
	}
}

// a case is one way of running the binary; its figure ends when its end says so.
type runCase struct {
	bin     string
	name    string
	args    []string
	request bool // the figure ends at the first request, else at the process's exit
}

func measure(bins []string, dir string, n, warmup int) error {
	tmp, err := os.MkdirTemp("", "firstrequest")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if dir == "" {
		dir = filepath.Join(tmp, "work")
		if err := os.Mkdir(dir, 0o755); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	arrived := make(chan time.Time, 16)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- time.Now()
		_, _ = io.Copy(io.Discard, r.Body)
		answer(w)
	})}
	go srv.Serve(ln)
	defer srv.Close()
	base := "http://" + ln.Addr().String() + "/v1"

	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(tmp, "home"),
		"XDG_STATE_HOME=" + filepath.Join(tmp, "state"), "KIMI_API_KEY=sk-bench-not-a-real-key",
		"KIMI_MODEL_NAME=bench-model", "KIMI_RUN_NO_ROOT_WARNING=1"}
	run := []string{"-w", dir, "-p", "hi", "--base-url", base}
	perBin := []runCase{
		{name: "--version (start to exit)", args: []string{"--version"}},
		{name: "-p hi --no-session (start to request)", args: append([]string{"--no-session"}, run...), request: true},
		{name: "-p hi (start to request)", args: run, request: true},
		{name: "-p hi --no-session (start to exit)", args: append([]string{"--no-session"}, run...)},
		{name: "-p hi (start to exit)", args: run},
	}
	var cases []runCase
	for _, bin := range bins {
		for _, c := range perBin {
			c.bin = bin
			cases = append(cases, c)
		}
	}
	got := make([][]float64, len(cases))
	for i := range warmup + n {
		order := make([]int, len(cases))
		for j := range order {
			order[j] = j
		}
		if i%2 == 1 {
			slices.Reverse(order)
		}
		for _, j := range order {
			ms, err := once(env, cases[j], arrived)
			if err != nil {
				return fmt.Errorf("%s: %w", cases[j].name, err)
			}
			if i >= warmup {
				got[j] = append(got[j], ms)
			}
		}
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("%d iterations (after %d warm-up), load average %s\n", n, warmup, strings.Join(strings.Fields(string(load))[:3], " "))
	for b, bin := range bins {
		at := b * len(perBin)
		if len(bins) > 1 {
			fmt.Printf("\n%s\n", bin)
		}
		fmt.Printf("%-42s %10s %8s\n", "case", "median ms", "min ms")
		for j, c := range cases[at : at+len(perBin)] {
			fmt.Printf("%-42s %10.2f %8.2f\n", c.name, median(got[at+j]), slices.Min(got[at+j]))
		}
		for _, j := range []int{at + 1, at + 2} {
			diff := make([]float64, n)
			for i := range n {
				diff[i] = got[j][i] - got[at][i]
			}
			fmt.Printf("set-up before the first request, %s: %.2f ms (median of the differences; of the medians %.2f ms)\n",
				strings.TrimSuffix(cases[j].name, " (start to request)"), median(diff), median(got[j])-median(got[at]))
		}
	}
	return nil
}

// once runs the binary for c and returns its figure in ms.
func once(env []string, c runCase, arrived chan time.Time) (float64, error) {
	for len(arrived) > 0 {
		<-arrived
	}
	cmd := exec.Command(c.bin, c.args...)
	cmd.Env = env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	err := cmd.Wait()
	end := time.Now()
	if err != nil {
		return 0, fmt.Errorf("%v: %s", err, stderr.String())
	}
	if c.request {
		select {
		case end = <-arrived:
		default:
			return 0, fmt.Errorf("the run made no request")
		}
	}
	return float64(end.Sub(start).Microseconds()) / 1000, nil
}

// answer streams one short reply.
func answer(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	const head = `data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1767225600,"model":"bench-model","choices":`
	io.WriteString(w, head+`[{"index":0,"delta":{"role":"assistant","content":"Done."},"finish_reason":null}]}`+"\n\n")
	io.WriteString(w, head+`[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":1200,"completion_tokens":2,"total_tokens":1202}}`+"\n\n")
	io.WriteString(w, "data: [DONE]\n\n")
}

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
