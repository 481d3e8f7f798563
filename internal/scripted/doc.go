// Package scripted is an OpenAI-compatible chat-completions server for tests.
//
// Every test of the model client, the agent loop and the end-to-end binary talks
// to it over real HTTP instead of a provider. It streams the way providers do:
// a POST to /v1/chat/completions is answered with text/event-stream lines of the
// form "data: {chunk}\n\n", a final usage chunk with empty choices and
// "data: [DONE]". Other wire protocols' paths (modelPaths in server.go: the
// Responses API's /v1/responses, ...) are served the same way, from scripts in
// their own event shapes.
//
// A script is an ordered list of Response values: request i gets response i.
// The last response may repeat forever (Response.Forever, or "#!forever" in a
// scenario file), which is how "500 forever" is written. A request that comes
// after the script ran out gets HTTP 500, is recorded with a Problem, and fails
// the test; so does a request that is not a POST of a JSON object to
// one of the model paths (answered 405, 404 or 400 without using up the script).
// A request that carries the agent's answer to a call of a tool it does not offer ("no
// tool named X") fails the test too, unless the test says so (Server.AllowUnknownTools).
//
// Responses come from two places that produce the same type:
//
//   - the builders: Text, ToolCalls and Reply with the parts Say, Think, Call,
//     KeepAlive, KeepAliveEvery, Raw, Pause, Cut, End, Hang, Usage and Finish;
//     Status for plain error replies; Header, Forever and DelayHeaders to adjust
//     any of them;
//   - provider shapes (shapes.go): UsageInChoice (Moonshot), UsageXGroq (Groq),
//     NoUsage, ReasoningTokens, Reason and ReasonPlain (OpenRouter's reasoning and
//     reasoning_details), Signature, CommentBytes (a flood of comment lines), Stream
//     (a recorded body verbatim) and Page (an HTML page answering with 200);
//   - txtar scenario files (Parse, Load, Scenario), one section per response,
//     each written as a raw HTTP response with a few "#!" directives. The format
//     is described in testdata/scenarios/README.md at the module root.
//
// NewFunc serves a model written as a function of the request instead of a script: for
// runs killed at random moments and resumed, whose requests depend on where they stopped.
//
// WaitRequests lets a test wait until the client has sent a given number of requests,
// rather than sleep.
//
// Chaos builds a reproducible, random script of provider misbehaviour for
// fuzz-like tests of retry and stream handling.
//
// Typical use:
//
//	s := scripted.New(t, scripted.Status(429, scripted.ErrorBody("rate_limit_reached_error", "slow down")).Header("Retry-After", "1"),
//		scripted.ToolCalls(scripted.Call("Shell", `{"command":"ls"}`)),
//		scripted.Text("done"))
//	cfg := openai.DefaultConfig("test-key")
//	cfg.BaseURL = s.URL()
//	... run the client ...
//	msgs := s.Requests()[2].Messages() // what went back after the tool ran
package scripted
