package model_test

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/model"
)

// BenchmarkCommentFlood streams MB megabytes of SSE comment lines (": keep-alive") before a
// one-word answer, over loopback HTTP, and reports the peak heap in use while it runs. With
// kimi-run's client the peak stays flat whatever the flood; go-openai alone (the
// "go-openai" rows) keeps every comment line until the next data line. Figures are in
// docs/performance.md.
//
//	go test ./agent/ -run '^$' -bench 'CommentFlood/kimi-run/100MB' -benchtime 1x
func BenchmarkCommentFlood(b *testing.B) {
	for _, mb := range []int64{1, 10, 100} {
		b.Run(fmt.Sprintf("kimi-run/%dMB", mb), func(b *testing.B) {
			srv := scripted.New(b, scripted.Reply(scripted.CommentBytes(mb<<20), scripted.Say("done")).Forever())
			m := model.NewOpenAI(model.Config{BaseURL: srv.URL(), APIKey: "k", Model: "m", IdleTimeout: time.Minute})
			req := model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}}
			stop := peakHeap(b)
			for b.Loop() {
				if r, err := m.Stream(b.Context(), req, model.Handler{}); err != nil || r.Text != "done" {
					b.Fatalf("reply %q, %v", r.Text, err)
				}
			}
			stop()
		})
	}
	for _, mb := range []int64{10, 100} {
		b.Run(fmt.Sprintf("go-openai/%dMB", mb), func(b *testing.B) {
			srv := scripted.New(b, scripted.Reply(scripted.CommentBytes(mb<<20), scripted.Say("done")).Forever())
			cfg := openai.DefaultConfig("k")
			cfg.BaseURL = srv.URL()
			cfg.EmptyMessagesLimit = 1 << 30
			c := openai.NewClientWithConfig(cfg)
			stop := peakHeap(b)
			for b.Loop() {
				s, err := c.CreateChatCompletionStream(b.Context(), openai.ChatCompletionRequest{Model: "m", Stream: true,
					Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}}})
				if err != nil {
					b.Fatal(err)
				}
				for {
					if _, err := s.Recv(); err != nil {
						break
					}
				}
				s.Close()
			}
			stop()
		})
	}
}

// peakHeap samples the heap in use until the returned function is called, which reports
// the peak as peak-heap-MiB.
func peakHeap(b *testing.B) func() {
	runtime.GC()
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
		b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
		if kb := peakRSS(); kb > 0 {
			// The process's high-water mark: run one sub-benchmark per process to read it.
			b.ReportMetric(float64(kb)/1024, "peak-rss-MiB")
		}
	}
}

// peakRSS reads VmHWM from /proc/self/status, in KiB; 0 where there is none.
func peakRSS() int {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return kb
		}
	}
	return 0
}
