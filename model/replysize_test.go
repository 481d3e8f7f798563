package model_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/model/protocols"
)

// A reply that never ends, or one too large however it comes (many chunks, one huge
// line, reasoning, tool arguments), is cut at the cap as a broken stream: retried like
// one (issue 25 #3: a provider that kept sending text grew a run by 30 MB/s, and one 50 MB
// chunk cost 500 MB). A reply within the cap is whole.
func TestReplySizeIsCapped(t *testing.T) {
	t.Parallel()
	const max = 1 << 20
	big := strings.Repeat("y", 300<<10)
	for _, tt := range []struct {
		name  string
		reply scripted.Response
		cut   bool
	}{
		{name: "text for ever", reply: scripted.Reply(scripted.SayBytes(-1, 4096)), cut: true},
		{name: "one line larger than the cap allows", reply: scripted.Reply(scripted.SayBytes(4<<20, 4<<20)), cut: true},
		{name: "just over in small chunks", reply: scripted.Reply(scripted.SayBytes(max+4096, 4096)), cut: true},
		{name: "reasoning, text and arguments together", reply: scripted.Reply(scripted.Think(big+" "+big), scripted.Say(big),
			scripted.Call("WriteFile", `{"path":"a","content":"`+big+`"}`)), cut: true},
		{name: "within the cap", reply: scripted.Reply(scripted.SayBytes(max-4096, 4096))},
		{name: "within the cap, one line", reply: scripted.Reply(scripted.SayBytes(max-4096, max-4096))},
	} {
		for _, p := range protocols.All {
			t.Run(p.Name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				srv := scripted.New(t, tt.reply)
				m := p.New(model.Config{Protocol: p.Name, BaseURL: srv.URL(), APIKey: "k", Model: "m", IdleTimeout: time.Minute, MaxReplyBytes: max})
				reply, err := m.Stream(t.Context(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}}, model.Handler{})
				var tl *model.ReplyTooLargeError
				switch {
				case tt.cut && !errors.As(err, &tl):
					t.Fatalf("err %v, want the reply cut", err)
				case tt.cut && (!errors.Is(err, model.ErrIncompleteStream) || !model.Retryable(err)):
					t.Fatalf("err %v: not retried as a broken stream", err)
				case tt.cut && len(reply.Text)+len(reply.Reasoning) > max:
					t.Fatalf("kept %d bytes past the cap", len(reply.Text)+len(reply.Reasoning))
				case !tt.cut && (err != nil || len(reply.Text) != max-4096):
					t.Fatalf("reply of %d bytes, %v", len(reply.Text), err)
				}
			})
		}
	}
}

func TestReplyTooLargeMessage(t *testing.T) {
	t.Parallel()
	err := &model.ReplyTooLargeError{Max: model.DefaultMaxReplyBytes}
	if got := err.Error(); !strings.Contains(got, "16 MiB") || !strings.Contains(got, "--max-reply-bytes") {
		t.Fatalf("%q", got)
	}
}

// BenchmarkReplyMemory streams one reply of MB megabytes over loopback HTTP, in 4 KiB
// chunks or as one data line, and reports the peak heap against the reply's size; the
// "endless" rows stream text for ever and are cut at the default cap (16 MiB). Figures are
// in docs/performance.md.
//
//	go test ./model/ -run '^$' -bench ReplyMemory -benchtime 3x
func BenchmarkReplyMemory(b *testing.B) {
	for _, tt := range []struct {
		name  string
		reply scripted.Response
		size  int64
		cut   bool
	}{
		{"chunks/1MB", scripted.Reply(scripted.SayBytes(1<<20, 4096)), 1 << 20, false},
		{"chunks/8MB", scripted.Reply(scripted.SayBytes(8<<20, 4096)), 8 << 20, false},
		{"one-line/8MB", scripted.Reply(scripted.SayBytes(8<<20, 8<<20)), 8 << 20, false},
		{"endless/chunks", scripted.Reply(scripted.SayBytes(-1, 4096)), model.DefaultMaxReplyBytes, true},
		{"endless/one-line", scripted.Reply(scripted.SayBytes(1<<30, 1<<30)), model.DefaultMaxReplyBytes, true},
	} {
		b.Run(tt.name, func(b *testing.B) {
			srv := scripted.New(b, tt.reply.Forever())
			m := model.NewOpenAI(model.Config{BaseURL: srv.URL(), APIKey: "k", Model: "m", IdleTimeout: time.Minute})
			req := model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}}
			stop := peakHeap(b)
			for b.Loop() {
				r, err := m.Stream(b.Context(), req, model.Handler{Text: func(string) {}})
				var tl *model.ReplyTooLargeError
				if tt.cut != errors.As(err, &tl) || (!tt.cut && int64(len(r.Text)) != tt.size) {
					b.Fatalf("reply of %d bytes, %v", len(r.Text), err)
				}
			}
			stop()
			b.SetBytes(tt.size)
		})
	}
}
