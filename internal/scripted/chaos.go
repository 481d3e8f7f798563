package scripted

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// MaxChaosFailures bounds the transient failures Chaos puts before the last
// response, so a client that allows MaxChaosFailures+1 attempts always gets there.
const MaxChaosFailures = 3

// ChaosScript is a random but reproducible script made by Chaos, with what a
// well-behaved client should end up with.
type ChaosScript struct {
	Responses []Response
	// Failures is the number of transient failures before the last response:
	// 429, 500 or 503 (some with Retry-After or retry-after-ms of at most one
	// second), a stream dropped mid-way, or a stream that ends cleanly before
	// its finish_reason.
	Failures int
	// Answer is the text of the final streamed answer, empty when the script
	// ends in a permanent error instead.
	Answer string
	// Status is 200 when the script ends in an answer, else the status of the
	// permanent error (400, 401 or 403), which then repeats forever.
	Status int
}

// Chaos returns the script for seed. The streams it contains, failed or not,
// are salted with keep-alive storms longer than go-openai's default limit of
// 300 empty lines, SSE lines a client must ignore, short stalls, and a slow
// drip that splits lines across writes.
func Chaos(seed int64) ChaosScript {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x6b696d69))
	c := ChaosScript{Failures: rng.IntN(MaxChaosFailures + 1)}
	for range c.Failures {
		c.Responses = append(c.Responses, transient(rng))
	}
	if rng.IntN(8) == 0 {
		p := permanentErrors[rng.IntN(len(permanentErrors))]
		c.Status = p.code
		c.Responses = append(c.Responses, Status(p.code, ErrorBody(p.typ, p.msg)).Forever())
		return c
	}
	c.Status = http.StatusOK
	c.Answer = fmt.Sprintf("Done after %d hiccups, seed %d.", c.Failures, seed)
	c.Responses = append(c.Responses, noisy(rng, c.Answer))
	return c
}

var permanentErrors = []struct {
	code     int
	typ, msg string
}{
	{http.StatusBadRequest, "invalid_request_error", "the request is too long for the model's context"},
	{http.StatusUnauthorized, "invalid_authentication_error", "the API key is not valid"},
	{http.StatusForbidden, "permission_denied_error", "this key may not use the model"},
}

var garbageLines = []string{
	"event: ping\n\n", "event: message\n", "id: 17\n", "retry: 3000\n\n",
	": OPENROUTER PROCESSING\n\n", "\n\n\n",
}

func transient(rng *rand.Rand) Response {
	switch rng.IntN(7) {
	case 5:
		// A data line that is not JSON: a proxy truncated or mangled the stream.
		return noisy(rng, "Let me start by looking", Raw("data: {\"choices\":[{\"delta\":{\"cont\n\n"), Cut())
	case 6:
		// An error object inside a healthy-looking stream: the backend gave up mid-reply.
		return noisy(rng, "Let me start by looking", Raw("data: {\"error\":{\"message\":\"the engine is overloaded\",\"type\":\"server_error\"}}\n\n"), End())
	case 0:
		return retryAfter(rng, Status(http.StatusTooManyRequests, ErrorBody("rate_limit_reached_error", "rate limit reached, slow down")))
	case 1:
		return retryAfter(rng, Status(http.StatusInternalServerError, ErrorBody("server_error", "internal server error")))
	case 2:
		return retryAfter(rng, Status(http.StatusServiceUnavailable, ErrorBody("engine_overloaded_error", "the engine is overloaded")))
	case 3:
		return noisy(rng, "Let me start by looking", Cut())
	default:
		return noisy(rng, "Let me start by looking", End())
	}
}

func retryAfter(rng *rand.Rand, r Response) Response {
	switch rng.IntN(4) {
	case 0:
		return r.Header("Retry-After", "0")
	case 1:
		return r.Header("Retry-After", "1")
	case 2:
		return r.Header("retry-after-ms", strconv.Itoa(rng.IntN(250)))
	}
	return r
}

// noisy streams text word by word with random noise between the words, then
// ends with end (a Cut or End) if given, else normally.
func noisy(rng *rand.Rand, text string, end ...Part) Response {
	var parts []Part
	if rng.IntN(3) == 0 {
		parts = append(parts, Think("The provider is flaky today; answer briefly."))
	}
	for _, w := range words(text) {
		switch rng.IntN(8) {
		case 0:
			parts = append(parts, KeepAlive(301+rng.IntN(1200)))
		case 1:
			parts = append(parts, Raw(garbageLines[rng.IntN(len(garbageLines))]))
		case 2:
			parts = append(parts, Pause(time.Duration(1+rng.IntN(20))*time.Millisecond))
		}
		parts = append(parts, Say(w))
	}
	r := Reply(append(parts, end...)...)
	if rng.IntN(4) == 0 {
		r.steps = drip(rng, r.steps)
	}
	return r
}

// drip splits small writes into pieces of a few bytes, each flushed on its own,
// so lines reach the client in parts.
func drip(rng *rand.Rand, steps []step) []step {
	var out []step
	for _, st := range steps {
		if st.kind != stepWrite || len(st.data) > 1024 {
			out = append(out, st)
			continue
		}
		for data := st.data; len(data) > 0; {
			n := min(1+rng.IntN(24), len(data))
			pause := time.Duration(0)
			if rng.IntN(8) == 0 {
				pause = time.Millisecond
			}
			out = append(out, step{kind: stepWrite, data: data[:n]}, step{kind: stepSleep, d: pause})
			data = data[n:]
		}
	}
	return out
}
