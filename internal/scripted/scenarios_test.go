package scripted_test

import (
	"reflect"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// TestScenarios decodes every scenario file with go-openai, one request per
// scripted response, and checks what the real client makes of it.
func TestScenarios(t *testing.T) {
	answer := func(text string, u usage) turn { return turn{Text: text, Finish: "stop", Usage: u} }
	tests := []struct {
		name       string
		emptyLimit uint
		want       []turn
	}{
		{name: "plain", want: []turn{answer("Hello! The answer is 42.", usage{812, 9, 821, 256})}},
		{name: "tools-sequential", want: []turn{
			{Text: "Let me look. ", Finish: "tool_calls", Usage: usage{640, 31, 671, 512},
				Calls: []call{{"call_seq_1", "Shell", `{"command":"ls"}`}}},
			answer("The directory holds go.mod and main.go.", usage{702, 12, 714, 640}),
		}},
		{name: "tools-parallel", want: []turn{
			{Finish: "tool_calls", Usage: usage{640, 31, 671, 512}, Calls: []call{
				{"call_par_1", "ReadFile", `{"path":"README.md"}`},
				{"call_par_2", "Shell", `{"command":"go test ./..."}`},
			}},
			answer("README read and the tests pass.", usage{930, 8, 938, 640}),
		}},
		{name: "tools-split-indexless", want: []turn{
			{Finish: "tool_calls", Usage: usage{500, 40, 540, 0}, NilIndexes: 20, Calls: []call{
				{"call_nx_1", "ReadFile", `{"path":"notes/todo.txt"}`},
				{"call_nx_2", "Shell", `{"command":"wc -l notes/todo.txt"}`},
			}},
			{Finish: "tool_calls", Usage: usage{620, 44, 664, 512}, Calls: []call{
				{"call_rep_1", "WriteFile", `{"path":"out.txt","content":"hello\n"}`},
				{"call_rep_2", "Shell", `{"command":"cat out.txt"}`},
			}},
			answer("The todo list has 3 lines; out.txt says hello.", usage{900, 14, 914, 512}),
		}},
		{name: "reasoning", want: []turn{
			{Reasoning: "The user wants the repo state, so I should run git status first.", Finish: "tool_calls",
				Usage: usage{640, 31, 671, 512}, Calls: []call{{"call_think_1", "Shell", `{"command":"git status --short"}`}}},
			{Reasoning: "git status printed nothing, so nothing is modified.", Text: "The working tree is clean.",
				Finish: "stop", Usage: usage{760, 21, 781, 512}},
		}},
		{name: "retry-after", want: []turn{
			{RetryAfter: "1", Err: "api 429 rate_limit_reached_error"},
			answer("Answered after one retry.", usage{812, 6, 818, 0}),
		}},
		{name: "server-error-forever", want: []turn{
			{Err: "api 500 server_error"}, {Err: "api 500 server_error"}, {Err: "api 500 server_error"},
		}},
		{name: "unauthorized", want: []turn{{Err: "api 401 invalid_authentication_error"}}},
		// go-openai loses the status of these two (it unwraps to an empty APIError): the
		// point of the scenarios, since kimi-run's transport keeps it.
		{name: "unauthorized-bare", want: []turn{{Err: "api 0 "}}},
		{name: "server-error-flat", want: []turn{{Err: "api 0 "}, {Err: "api 0 "}}},
		{name: "stream-auth-error", want: []turn{{Err: "api 0 invalid_request_error"}}},
		{name: "cut-stream", want: []turn{
			{Text: "I will start by reading ", Err: "unexpected EOF"},
			answer("Second try worked.", usage{812, 5, 817, 0}),
		}},
		{name: "keepalive-storm", emptyLimit: 1 << 20, want: []turn{
			answer("Sorry for the wait, here is the answer.", usage{812, 9, 821, 0}),
		}},
		{name: "keepalive-storm", want: []turn{{Err: "too many empty messages"}}}, // go-openai's default limit
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := scripted.New(t, scripted.Scenario(t, tt.name)...)
			c := newClient(s.URL(), tt.emptyLimit)
			for i, want := range tt.want {
				if got := c.stream(t.Context()); !reflect.DeepEqual(got, want) {
					t.Errorf("request %d:\n got %+v\nwant %+v", i+1, got, want)
				}
			}
		})
	}
}
