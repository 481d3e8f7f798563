package model

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// Sentinel errors of the model client. All three are transient and retried.
var (
	// ErrIncompleteStream means the stream ended before a finish_reason arrived: the reply is
	// cut short, not finished.
	ErrIncompleteStream = errors.New("model stream ended before the reply was complete")
	// ErrEmptyReply means the model finished without text or tool calls.
	ErrEmptyReply = errors.New("model returned an empty reply")
	// ErrStreamIdle means the stream sent nothing for longer than the idle timeout.
	ErrStreamIdle = errors.New("model stream went silent")
)

// FinishError is a reply the provider ended for a reason other than stop, tool_calls or
// length: a content filter (content_filter, Gemini's SAFETY or RECITATION), a backend out
// of resources (DeepSeek's insufficient_system_resource), or anything new; or a prompt the
// provider refused to answer at all (Gemini's promptFeedback.blockReason). What arrived is
// not an answer, and asking again would most likely end the same way, so it is not retried.
type FinishError struct {
	Reason string
	// Detail is the provider's own explanation, when it gave one (Gemini's finishMessage
	// or blockReasonMessage).
	Detail string
	// Prompt says the prompt was refused before any answer began.
	Prompt bool
}

func (e *FinishError) Error() string {
	msg := fmt.Sprintf("the provider ended the reply with finish_reason %q, not a finished answer", e.Reason)
	if e.Prompt {
		msg = fmt.Sprintf("the provider refused the prompt (block reason %q) and gave no answer", e.Reason)
	}
	if d := oneLine(e.Detail); d != "" {
		msg += ": " + d
	}
	return msg
}

// MalformedReplyError is a reply the provider ended because the model botched a tool call
// (Gemini's MALFORMED_FUNCTION_CALL, UNEXPECTED_TOOL_CALL, TOO_MANY_TOOL_CALLS or
// MALFORMED_RESPONSE): there is no call to run nor to answer with an error. It is
// transient: the same request usually comes out right on another attempt.
type MalformedReplyError struct {
	Reason string
	// Detail is the provider's finishMessage, when it sent one.
	Detail string
}

func (e *MalformedReplyError) Error() string {
	msg := fmt.Sprintf("the model's reply was malformed (finish reason %q)", e.Reason)
	if d := oneLine(e.Detail); d != "" {
		msg += ": " + d
	}
	return msg
}

// knownFinish reports whether a finish_reason ends a reply the loop can use. function_call
// is OpenAI's older name for tool_calls.
func knownFinish(r string) bool {
	switch r {
	case "stop", "tool_calls", "length", "function_call":
		return true
	}
	return false
}

// EndpointError is a successful answer that is not an event stream or JSON at all but a web
// page: the base URL points at a website or a dashboard, not the model's API. No retry can
// fix that.
type EndpointError struct {
	// URL is the request URL without its query; ContentType is what came back.
	URL, ContentType string
}

func (e *EndpointError) Error() string {
	return fmt.Sprintf("the base URL looks wrong: %s answered HTTP 200 with %s (a web page, not the model's API); set the API's base URL (an OpenAI-compatible one usually ends in /v1)",
		e.URL, e.ContentType)
}

// ProviderError is an error answer from the model endpoint.
type ProviderError struct {
	// StatusCode is the HTTP status; 0 when the error arrived inside the stream.
	StatusCode int
	// Message is the provider's own explanation.
	Message string
	// Code and Type are the error document's code and type, when it had them
	// (invalid_api_key, rate_limit_exceeded, exceeded_current_quota_error, ...).
	Code, Type string
	// Provider and Raw are what a gateway (OpenRouter) says about the upstream provider:
	// error.metadata.provider_name and error.metadata.raw, the upstream's own message.
	Provider, Raw string
	// RetryAfter is the wait the provider asked for, in milliseconds; -1 when it asked
	// for none.
	RetryAfter int64
}

// RetryAfterSet reports whether the provider asked for a specific wait.
func (e *ProviderError) RetryAfterSet() bool { return e.RetryAfter >= 0 }

func (e *ProviderError) Error() string {
	msg := e.detail()
	if e.StatusCode == 0 {
		return "provider error: " + msg
	}
	if msg == "" {
		return fmt.Sprintf("provider returned HTTP %d", e.StatusCode)
	}
	return fmt.Sprintf("provider returned HTTP %d: %s", e.StatusCode, msg)
}

// detail is the message with what a gateway adds (the upstream provider and its own words)
// and the error type when the message does not already say it, on one bounded line.
func (e *ProviderError) detail() string {
	msg := e.Message
	switch {
	case e.Raw != "" && !strings.Contains(msg, e.Raw):
		up := e.Raw
		if e.Provider != "" {
			up = e.Provider + ": " + up
		}
		msg = strings.TrimSpace(msg + " (" + up + ")")
	case e.Provider != "" && !strings.Contains(msg, e.Provider):
		msg = strings.TrimSpace(msg + " (" + e.Provider + ")")
	}
	if e.Type != "" && msg != "" && !strings.Contains(msg, e.Type) {
		msg += " [" + e.Type + "]"
	}
	return oneLine(msg)
}

// quotaMarks are the codes and types that mean the account ran out of credit or quota.
var quotaMarks = []string{"insufficient_quota", "exceeded_current_quota", "insufficient_balance", "insufficient_credits", "billing_hard_limit", "perday"}

// Quota reports whether the provider refused for want of credit: HTTP 402, or a 429 (or an
// error inside a stream) whose code or type is insufficient_quota (OpenAI),
// exceeded_current_quota_error (Moonshot) or a daily quota (Google's QuotaFailure on a
// ...PerDay... quota id, see googleDetails). That is a billing state, not a rate limit:
// waiting within a run does not fix it.
func (e *ProviderError) Quota() bool {
	if e.StatusCode == 402 {
		return true
	}
	if e.StatusCode != 429 && e.StatusCode != 0 && e.StatusCode != 403 {
		return false
	}
	for _, s := range []string{e.Code, e.Type} {
		s = strings.ToLower(s)
		for _, m := range quotaMarks {
			if s != "" && strings.Contains(s, m) {
				return true
			}
		}
	}
	return false
}

// Auth reports whether the provider refused the credentials: HTTP 401 or 403, or an error
// whose code or type says so (invalid_api_key, authentication_error, permission_denied, ...)
// inside a stream or with another 4xx status.
func (e *ProviderError) Auth() bool {
	switch {
	case e.StatusCode == 401 || e.StatusCode == 403:
		return true
	case e.StatusCode == 0 || (e.StatusCode >= 400 && e.StatusCode < 500 && e.StatusCode != 408 && e.StatusCode != 409 && e.StatusCode != 429):
		return authLike(e.Code) || authLike(e.Type)
	}
	return false
}

// fromOpenAI turns go-openai's error types into a ProviderError; other errors pass through.
func fromOpenAI(err error) error {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		code := ""
		if apiErr.Code != nil {
			code = fmt.Sprint(apiErr.Code)
		}
		return &ProviderError{StatusCode: apiErr.HTTPStatusCode, Message: oneLine(apiErr.Message), Code: code, Type: apiErr.Type, RetryAfter: -1}
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		msg := ""
		if len(reqErr.Body) > 0 {
			msg = oneLine(string(reqErr.Body))
		}
		return &ProviderError{StatusCode: reqErr.HTTPStatusCode, Message: msg, RetryAfter: -1}
	}
	if errors.Is(err, openai.ErrTooManyEmptyStreamMessages) {
		return fmt.Errorf("%w: too many empty stream lines", ErrIncompleteStream)
	}
	return err
}

// oneLine flattens a provider message to one bounded line; an HTML error page must not
// flood the log. A cut drops the middle, keeping the start and the end, where a
// validation error usually names what was wrong.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	const max, head = 500, 160
	if len(s) > max {
		tail := s[len(s)-(max-head):]
		s = strings.ToValidUTF8(s[:head], "") + " […] " + strings.ToValidUTF8(tail, "")
	}
	return s
}

// PlainHTTP reports whether a TLS handshake was answered by a server that does not speak
// TLS: an https:// base URL for a plain-HTTP port, which no retry can fix.
func PlainHTTP(err error) bool {
	var rh tls.RecordHeaderError
	return errors.Is(err, http.ErrSchemeMismatch) || errors.As(err, &rh)
}

// Retryable reports whether err is worth another attempt: network failures, cut, empty or
// malformed replies, HTTP 408, 409, 429 and 5xx but 501, and error objects inside a stream. Never
// 400, 401, 403, 404, 501, an auth or quota error in any shape, a finish_reason other than
// stop/tool_calls/length, a web page where the API should be, a TLS handshake answered in plain HTTP, a cancelled run or a used-up
// budget.
func Retryable(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, context.Canceled) {
		return false
	}
	var be *BudgetError
	if errors.As(err, &be) {
		return false // waiting does not make a budget grow
	}
	var fe *FinishError
	var ee *EndpointError
	if errors.As(err, &fe) || errors.As(err, &ee) || PlainHTTP(err) {
		return false
	}
	var me *MalformedReplyError
	if errors.Is(err, ErrIncompleteStream) || errors.Is(err, ErrEmptyReply) || errors.Is(err, ErrStreamIdle) || errors.As(err, &me) {
		return true
	}
	var pe *ProviderError
	if errors.As(err, &pe) {
		switch {
		case pe.Auth(), pe.Quota():
			return false
		case pe.StatusCode == 0:
			// An error object inside an otherwise healthy stream: usually an overloaded
			// backend, so another attempt is reasonable.
			return true
		case pe.StatusCode == 501:
			// Not Implemented says the endpoint lacks the feature; Kimi CLI does not
			// retry it either (it retries 429, 500, 502, 503 and 504).
			return false
		case pe.StatusCode == 408, pe.StatusCode == 409, pe.StatusCode == 429, pe.StatusCode >= 500:
			return true
		}
		return false
	}
	// Everything else that reaches here came from the transport or the stream decoder:
	// timeouts, refused or reset connections, an EOF while reading headers, a garbled SSE
	// line. These are transient more often than not, and the attempt budget bounds them.
	return true
}
