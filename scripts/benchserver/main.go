// Command benchserver is a zero-latency OpenAI-compatible chat-completions endpoint for
// scripts/bench.sh. It answers at once, streaming SSE chunks the way providers do.
//
// It keeps no state between requests, so one server can answer any number of runs: the
// base URL says how many tool steps a run should take, and each request's own count of
// tool results says where in that run it is.
//
//	http://ADDR/v1                 one streamed answer, no tool call
//	http://ADDR/think/N/v1         N steps that each call Think, then the answer
//	http://ADDR/shell/N/v1         N steps that each call Shell with `true`, then the answer
//	http://ADDR/paced/TOOL/N/v1    the same, with a pause (-pace) after each chunk, as a
//	                               provider streams its tokens: what the run does while a
//	                               reply streams (start the launcher) is then measured too
//
// Under the plain base URL it also serves what other agents ask of it (scripts/peers.sh
// times them against this server): POST /v1/responses streams the same answer as
// Responses API events (codex speaks only that protocol), and GET /v1/models lists the
// one model (crush may ask which models a custom provider has).
//
// Each call's arguments differ (they carry the step number) so the agent's loop guard,
// which stops a model repeating one call, never fires.
//
// Usage: benchserver [-addr 127.0.0.1:0] [-url-file FILE] [-lifetime 5m] [-log FILE]
// The base URL of the plain answer is printed on stdout and written to -url-file. With -log,
// the method and path of every request are appended to FILE, one a line, as it arrives.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	urlFile := flag.String("url-file", "", "write the base URL to this file once listening")
	lifetime := flag.Duration("lifetime", 5*time.Minute, "exit after this long, so a forgotten server never lingers")
	pace := flag.Duration("pace", 5*time.Millisecond, "the pause after each chunk of a /paced/ reply")
	logFile := flag.String("log", "", "append each request's method and path to this file")
	flag.Parse()
	if err := serve(*addr, *urlFile, *logFile, *lifetime, *pace); err != nil {
		fmt.Fprintln(os.Stderr, "benchserver:", err)
		os.Exit(1)
	}
}

func serve(addr, urlFile, logFile string, lifetime, pace time.Duration) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	base := "http://" + ln.Addr().String() + "/v1"
	if urlFile != "" {
		// Write to a temporary name and rename, so a reader never sees half a URL.
		tmp := urlFile + ".tmp"
		if err := os.WriteFile(tmp, []byte(base+"\n"), 0o644); err != nil {
			return fmt.Errorf("write url file: %w", err)
		}
		if err := os.Rename(tmp, urlFile); err != nil {
			return fmt.Errorf("write url file: %w", err)
		}
	}
	fmt.Println(base)

	var h http.Handler = routes(pace)
	if logFile != "" {
		f, err := os.OpenFile(logFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("open log: %w", err)
		}
		defer f.Close()
		h = logged(h, f)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, lifetime)
	defer cancel()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// routes serves every base URL of the package comment, pausing pace after each chunk of a
// /paced/ reply.
func routes(pace time.Duration) *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", handler("", 0, 0))
	mux.HandleFunc("POST /v1/responses", responses)
	mux.HandleFunc("GET /v1/models", models)
	steps := func(gap time.Duration) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			n, err := strconv.Atoi(r.PathValue("steps"))
			tool := r.PathValue("tool")
			if err != nil || n < 0 || (tool != "think" && tool != "shell") {
				http.Error(w, `{"error":{"message":"want /think/N/v1 or /shell/N/v1","type":"invalid_request_error"}}`, http.StatusNotFound)
				return
			}
			handler(tool, n, gap)(w, r)
		}
	}
	mux.HandleFunc("POST /{tool}/{steps}/v1/chat/completions", steps(0))
	mux.HandleFunc("POST /paced/{tool}/{steps}/v1/chat/completions", steps(pace))
	return mux
}

// logged writes each request's method and path to w before h answers it.
func logged(h http.Handler, w io.Writer) http.Handler {
	var mu sync.Mutex
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		mu.Lock()
		fmt.Fprintf(w, "%s %s\n", r.Method, r.URL.Path)
		mu.Unlock()
		h.ServeHTTP(rw, r)
	})
}

// request is the part of a chat-completions body the server looks at.
type request struct {
	Messages []struct {
		Role string `json:"role"`
	} `json:"messages"`
}

// handler answers one request of a run that takes steps tool steps calling tool, pausing
// gap after each chunk.
func handler(tool string, steps int, gap time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req request
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, `{"error":{"message":"body is not JSON","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		done := 0
		for _, m := range req.Messages {
			if m.Role == "tool" {
				done++
			}
		}
		s := newStream(w)
		s.gap = gap
		if done < steps {
			s.toolCall(done+1, tool)
		} else {
			s.answer(answerText(done))
		}
	}
}

// answerText is the final answer of a run that took done tool steps.
func answerText(done int) string {
	return fmt.Sprintf("Done after %d tool steps. The task is complete and nothing else needs changing.", done)
}

// stream writes one SSE reply and flushes each chunk as a provider would.
type stream struct {
	w   http.ResponseWriter
	f   http.Flusher
	gap time.Duration
}

func newStream(w http.ResponseWriter) *stream {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &stream{w: w, f: f}
}

// Chunk shapes, written by hand with fixed ids: the content is irrelevant to timing, and
// fixed text keeps runs comparable.
const (
	chunkHead = `{"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1767225600,"model":"bench-model","choices":`
	usageTail = `[],"usage":{"prompt_tokens":1200,"completion_tokens":40,"total_tokens":1240,"prompt_tokens_details":{"cached_tokens":1000}}}`
)

func (s *stream) data(choices string) {
	fmt.Fprintf(s.w, "data: %s%s}\n\n", chunkHead, choices)
	if s.f != nil {
		s.f.Flush()
	}
	if s.gap > 0 {
		time.Sleep(s.gap)
	}
}

func (s *stream) finish(reason string) {
	s.data(`[{"index":0,"delta":{},"finish_reason":"` + reason + `"}]`)
	fmt.Fprintf(s.w, "data: %s%s\n\n", chunkHead, usageTail)
	fmt.Fprint(s.w, "data: [DONE]\n\n")
	if s.f != nil {
		s.f.Flush()
	}
}

// answer streams text one word per chunk, then finish_reason "stop".
func (s *stream) answer(text string) {
	s.data(`[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]`)
	for _, w := range strings.SplitAfter(text, " ") {
		s.data(`[{"index":0,"delta":{"content":` + quote(w) + `},"finish_reason":null}]`)
	}
	s.finish("stop")
}

// toolCall streams one call split over deltas, as providers do: the name first, then
// the arguments in two pieces.
func (s *stream) toolCall(step int, tool string) {
	name, args := "Think", fmt.Sprintf(`{"thought":"step %d: check the next part of the task"}`, step)
	if tool == "shell" {
		name, args = "Shell", fmt.Sprintf(`{"command":"true # step %d"}`, step)
	}
	id := fmt.Sprintf("call_bench_%d", step)
	half := len(args) / 2
	s.data(`[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]`)
	s.data(`[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"` + id + `","type":"function","function":{"name":"` + name + `","arguments":""}}]},"finish_reason":null}]`)
	for _, piece := range []string{args[:half], args[half:]} {
		s.data(`[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":` + quote(piece) + `}}]},"finish_reason":null}]`)
	}
	s.finish("tool_calls")
}

func quote(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}
