package model

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// errorBody is what an error document says, read leniently: providers and proxies put
// "error" as an object or a plain string, "message" inside it or beside it, and "code" as
// a string or a number.
type errorBody struct {
	Message string
	Code    string
	Type    string
	// Provider and Raw come from a gateway's error.metadata (OpenRouter): the upstream
	// provider's name and its own message.
	Provider string
	Raw      string
	// RetryMS is the wait Google's RetryInfo detail asks for, in milliseconds; 0 when none.
	RetryMS int64
}

// parseErrorBody reads an error document. A body that is not JSON (an HTML error page, a
// line of text) becomes the message, its tags removed. A JSON array is read as its first
// element: Google's streaming endpoints answer errors as [{"error":{...}}].
func parseErrorBody(body []byte) errorBody {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(body, &doc); err != nil {
		var list []map[string]json.RawMessage
		if json.Unmarshal(body, &list) != nil || len(list) == 0 || list[0] == nil {
			return errorBody{Message: oneLine(stripTags(string(body)))}
		}
		doc = list[0]
	}
	var b errorBody
	var errString string
	if raw, ok := doc["error"]; ok {
		var inner map[string]json.RawMessage
		switch {
		case json.Unmarshal(raw, &errString) == nil:
		case json.Unmarshal(raw, &inner) == nil:
			b.Message = JSONText(inner["message"])
			b.Code = JSONText(inner["code"])
			b.Type = JSONText(inner["type"])
			if b.Type == "" {
				b.Type = JSONText(inner["status"]) // Google's shape
			}
			b.Provider, b.Raw = gatewayDetail(inner["metadata"])
			googleDetails(&b, inner["details"])
		}
	}
	b.Message = FirstSet(b.Message, JSONText(doc["message"]), JSONText(doc["detail"]), JSONText(doc["error_description"]))
	b.Code = FirstSet(b.Code, JSONText(doc["code"]))
	b.Type = FirstSet(b.Type, JSONText(doc["type"]))
	switch {
	case errString != "" && b.Message != "":
		b.Message = errString + ": " + b.Message
	case errString != "":
		b.Message = errString
	}
	if b.Message == "" {
		b.Message = FirstSet(b.Code, b.Type)
	}
	b.Message = oneLine(b.Message)
	return b
}

// gatewayDetail reads OpenRouter's error.metadata: provider_name, and raw, the upstream's
// own error (a string, or a JSON document whose message is taken).
func gatewayDetail(raw json.RawMessage) (provider, msg string) {
	var meta map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &meta) != nil {
		return "", ""
	}
	provider = JSONText(meta["provider_name"])
	r := JSONText(meta["raw"])
	if r == "" && len(meta["raw"]) > 0 && string(meta["raw"]) != "null" {
		r = string(meta["raw"])
	}
	if strings.HasPrefix(strings.TrimSpace(r), "{") {
		// Upstream JSON: its message says more than the document.
		if inner := parseErrorBody([]byte(r)); inner.Message != "" {
			r = inner.Message
		}
	}
	return oneLine(provider), oneLine(r)
}

// JSONText reads a JSON string, number or array of strings as text; anything else is "".
func JSONText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return strings.Join(list, ", ")
	}
	return ""
}

// FirstSet is the first of vals that is not blank.
func FirstSet(vals ...string) string {
	for _, v := range vals {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// stripTags drops <...> markup so that an HTML error page reads as its text.
func stripTags(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
			b.WriteByte(' ')
		case r == '>' && in:
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// authMarks are the pieces of error codes and types that mean the credentials were refused.
var authMarks = []string{
	"api_key", "apikey", "invalid_key", "authenticat", "unauthori", "unauthenticated",
	"permission", "forbidden", "access_denied", "invalid_token", "token_expired",
}

// authLike reports whether an error code or type says the credentials were refused:
// invalid_api_key, authentication_error, permission_denied, 401, 403 and the like.
func authLike(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return false
	}
	if n, err := strconv.Atoi(s); err == nil {
		return n == 401 || n == 403
	}
	for _, m := range authMarks {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}

// streamErrorLine returns the error document carried by one line of an event stream
// (`data: {"error":...}`, or a bare JSON object as some servers send), or nil.
func streamErrorLine(line []byte) []byte {
	line = bytes.TrimSpace(line)
	if rest, ok := bytes.CutPrefix(line, []byte("data:")); ok {
		line = bytes.TrimSpace(rest)
	}
	if len(line) == 0 || line[0] != '{' || !bytes.Contains(line, []byte(`"error"`)) {
		return nil
	}
	var doc map[string]json.RawMessage
	if json.Unmarshal(line, &doc) != nil {
		return nil
	}
	if raw, ok := doc["error"]; !ok || string(raw) == "null" {
		return nil
	}
	return line
}

// googleDetails reads what Google's error details add (google.rpc types, in error.details):
// ErrorInfo's reason (API_KEY_INVALID says more than code 400), a QuotaFailure on a daily
// quota (waiting minutes does not lift it: its quota id becomes the code, which Quota
// reads), and RetryInfo's retryDelay, the wait asked for.
func googleDetails(b *errorBody, raw json.RawMessage) {
	var details []struct {
		Type       string `json:"@type"`
		Reason     string `json:"reason"`
		RetryDelay string `json:"retryDelay"`
		Violations []struct {
			QuotaID string `json:"quotaId"`
		} `json:"violations"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &details) != nil {
		return
	}
	for _, d := range details {
		switch {
		case strings.HasSuffix(d.Type, "google.rpc.ErrorInfo") && d.Reason != "":
			if !dailyQuota(b.Code) {
				b.Code = d.Reason
			}
		case strings.HasSuffix(d.Type, "google.rpc.QuotaFailure"):
			for _, v := range d.Violations {
				if dailyQuota(v.QuotaID) {
					b.Code = v.QuotaID
				}
			}
		case strings.HasSuffix(d.Type, "google.rpc.RetryInfo"):
			if dur, err := time.ParseDuration(d.RetryDelay); err == nil && dur > 0 {
				b.RetryMS = dur.Milliseconds()
			}
		}
	}
}

// dailyQuota reports whether a Google quota id is a per-day quota
// (GenerateRequestsPerDayPerProjectPerModel-FreeTier and the like).
func dailyQuota(id string) bool { return strings.Contains(strings.ToLower(id), "perday") }
