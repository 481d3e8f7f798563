package agent

import (
	"context"
	"errors"
	"fmt"
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

// ProviderError is an error answer from the model endpoint.
type ProviderError struct {
	// StatusCode is the HTTP status; 0 when the error arrived inside the stream.
	StatusCode int
	// Message is the provider's own explanation.
	Message string
	// Code and Type are the error document's code and type, when it had them
	// (invalid_api_key, rate_limit_exceeded, ...).
	Code, Type string
	// RetryAfter is the wait the provider asked for, in milliseconds; -1 when it asked
	// for none.
	RetryAfter int64
}

// RetryAfterSet reports whether the provider asked for a specific wait.
func (e *ProviderError) RetryAfterSet() bool { return e.RetryAfter >= 0 }

func (e *ProviderError) Error() string {
	if e.StatusCode == 0 {
		return "provider error: " + e.Message
	}
	if e.Message == "" {
		return fmt.Sprintf("provider returned HTTP %d", e.StatusCode)
	}
	return fmt.Sprintf("provider returned HTTP %d: %s", e.StatusCode, e.Message)
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

// Retryable reports whether err is worth another attempt: network failures, cut or empty
// replies, HTTP 408, 409, 429 and 5xx, and error objects inside a stream. Never 400, 401,
// 403, 404, an auth error in any shape, a cancelled run or a used-up budget.
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
	if errors.Is(err, ErrIncompleteStream) || errors.Is(err, ErrEmptyReply) || errors.Is(err, ErrStreamIdle) {
		return true
	}
	var pe *ProviderError
	if errors.As(err, &pe) {
		switch {
		case pe.Auth():
			return false
		case pe.StatusCode == 0:
			// An error object inside an otherwise healthy stream: usually an overloaded
			// backend, so another attempt is reasonable.
			return true
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
