package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// One retry policy for every call (Chat, and through it Structured and
// RunTools): a transient fault (server unreachable, 5xx or 429, a cut or
// malformed stream, an empty reply) is tried again after a backoff that
// doubles each time, with equal jitter (half the wait fixed, half random)
// so that clients that failed together do not come back together; a 429
// or 503 that says Retry-After is tried again after that wait instead, up
// to a bound (RetryPolicy.MaxRetryAfter, and never past the role's
// timeout); beyond it the call stops at once with ErrRetryLater, saying
// when the server asked to be called again. A refusal (401/403, 404, 400)
// is sent once and never retried, whether it comes as an HTTP status or as
// an error inside a 200 stream that names it.

// RetryPolicy says how transient faults are retried.
type RetryPolicy struct {
	Attempts int           // total attempts, at least 1
	Backoff  time.Duration // first wait; doubles each time (each wait jittered between half and all of it)
	Max      time.Duration // longest wait
	// MaxRetryAfter is the longest wait a server may ask for with
	// Retry-After (0: DefaultMaxRetryAfter); a longer one stops the call
	// with ErrRetryLater.
	MaxRetryAfter time.Duration
}

// DefaultRetry is three attempts, waiting about 250 ms then 500 ms, and
// waiting up to a minute when the server asks for it.
func DefaultRetry() RetryPolicy {
	return RetryPolicy{Attempts: 3, Backoff: 250 * time.Millisecond, Max: 4 * time.Second, MaxRetryAfter: DefaultMaxRetryAfter}
}

// DefaultMaxRetryAfter is the longest Retry-After a call waits for.
const DefaultMaxRetryAfter = time.Minute

// maxRetryAfterSeconds keeps a Retry-After in seconds from overflowing a
// Duration: ten years.
const maxRetryAfterSeconds = 10 * 365 * 24 * 3600

// httpFault is a failed HTTP request, classified: the sentinel error, the
// URL asked (without credentials), and the wait the server asked for
// (Retry-After on a 429 or 503; after 0: none).
type httpFault struct {
	err   error
	said  string // the status and the server's text ("HTTP 429: slow down")
	url   string
	after time.Duration
	at    time.Time // when the server asked to be called again
}

func (f *httpFault) Error() string { return f.err.Error() }
func (f *httpFault) Unwrap() error { return f.err }

// parseRetryAfter reads a Retry-After value: seconds, or an HTTP date. It
// returns the wait from now and the time it ends.
func parseRetryAfter(v string, now time.Time) (time.Duration, time.Time, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, time.Time{}, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, time.Time{}, false
		}
		d := time.Duration(min(n, maxRetryAfterSeconds)) * time.Second
		return d, now.Add(d), true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, time.Time{}, false
	}
	return max(t.Sub(now), 0), t, true
}

// statusErr is the sentinel error for an HTTP status with the server's
// text.
func statusErr(code int, msg string) error {
	switch code {
	case http.StatusNotFound, http.StatusBadRequest:
		return fmt.Errorf("%w: %s", statusSentinel(code), msg)
	}
	return fmt.Errorf("%w: HTTP %d: %s", statusSentinel(code), code, msg)
}

// statusSentinel is the sentinel for an HTTP status (or an error in a
// stream that names one): a refusal for 401/403, 404 and 400, a server
// error (retried) for the rest.
func statusSentinel(code int) error {
	switch code {
	case http.StatusUnauthorized, http.StatusForbidden:
		return ErrUnauthorized
	case http.StatusNotFound:
		return ErrModelNotFound
	case http.StatusBadRequest:
		return ErrBadRequest
	}
	return ErrServer
}

// streamCode is the status an error name in a stream's error object
// stands for (OpenAI's code and type, vLLM's and others' type names); 0
// for a name it does not know.
func streamCode(name string) int {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "invalid_api_key", "authentication_error", "invalid_authentication", "unauthorized", "authenticationerror":
		return http.StatusUnauthorized
	case "permission_denied", "permission_error", "permissiondeniederror", "insufficient_permissions", "forbidden":
		return http.StatusForbidden
	case "model_not_found", "not_found_error", "notfounderror":
		return http.StatusNotFound
	case "invalid_request_error", "context_length_exceeded", "badrequesterror":
		return http.StatusBadRequest
	case "rate_limit_exceeded", "rate_limit_error", "ratelimiterror":
		return http.StatusTooManyRequests
	case "overloaded_error":
		return http.StatusServiceUnavailable
	}
	return 0
}

// streamError classifies an error a server sent inside a 200 stream like
// the status it names: OpenAI's {"error": {"message", "type", "code"}}
// (code a name or a number; some servers add "status") or a plain string,
// and Ollama's {"error": "…", "status": 401}. One that names no status is
// a server error (retried).
func streamError(raw json.RawMessage, status int) error {
	var msg string
	code := status
	var names []string
	if json.Unmarshal(raw, &msg) != nil {
		var o struct {
			Message string          `json:"message"`
			Type    string          `json:"type"`
			Code    json.RawMessage `json:"code"`
			Status  json.RawMessage `json:"status"`
		}
		if json.Unmarshal(raw, &o) == nil {
			msg = o.Message
			for _, v := range []json.RawMessage{o.Status, o.Code} {
				var n int
				var s string
				switch {
				case json.Unmarshal(v, &n) == nil && n >= 400 && n < 600 && code == 0:
					code = n
				case json.Unmarshal(v, &s) == nil:
					if n, err := strconv.Atoi(s); err == nil && n >= 400 && n < 600 && code == 0 {
						code = n
					}
					names = append(names, s)
				}
			}
			names = append(names, o.Type) // after the code: "invalid_api_key" says more than "invalid_request_error"
		}
		if msg == "" {
			msg = string(raw)
		}
	}
	for _, n := range names {
		// A name says more than a generic number ("code": 500 with
		// "type": "authentication_error" is a refusal).
		if c := streamCode(n); c != 0 && (code == 0 || code >= 500 && c < 500) {
			code = c
		}
	}
	if code == 0 {
		code = textStatus(msg)
	}
	what := "the server reported an error mid-stream"
	if len(names) > 0 && names[0] != "" {
		what += " (" + clipText(names[0], 60) + ")"
	}
	return fmt.Errorf("%w: %s: %s", statusSentinel(code), what, clipText(msg, 300))
}

// textStatus reads an auth refusal from an error's bare text (Ollama's
// mid-stream "unauthorized"); 0 for anything else.
func textStatus(msg string) int {
	m := strings.ToLower(msg)
	for _, w := range []string{"unauthorized", "invalid api key", "invalid_api_key", "incorrect api key", "authentication"} {
		if strings.Contains(m, w) {
			return http.StatusUnauthorized
		}
	}
	if strings.Contains(m, "forbidden") || strings.Contains(m, "permission denied") {
		return http.StatusForbidden
	}
	return 0
}

// backoff is the wait before attempt+1: the server's Retry-After when it
// gave one (asked), else the policy's doubling wait with equal jitter.
func (c *Client) backoff(attempt int, err error) (wait time.Duration, asked bool) {
	var hf *httpFault
	if errors.As(err, &hf) && hf.after > 0 {
		return hf.after, true
	}
	w := c.retry.Backoff
	for i := 1; i < attempt && (c.retry.Max <= 0 || w < c.retry.Max); i++ {
		w *= 2
	}
	if c.retry.Max > 0 {
		w = min(w, c.retry.Max)
	}
	if w <= 1 {
		return w, false
	}
	half := w / 2
	return half + time.Duration(rand.Int64N(int64(w-half)+1)), false
}

// tooLate is the ErrRetryLater for a wait the server asked for that is
// longer than the policy's bound or than what is left of the call's time;
// nil when the call may wait.
func (c *Client) tooLate(ctx context.Context, wait time.Duration, err error) error {
	bound := c.retry.MaxRetryAfter
	if bound <= 0 {
		bound = DefaultMaxRetryAfter
	}
	why := fmt.Sprintf("longer than a call waits (%s)", bound)
	// The deadline is on the real clock, whatever clock reads HTTP dates.
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < min(wait, bound) {
		bound, why = max(time.Until(dl), 0), "past the role's timeout"
	}
	if wait <= bound {
		return nil
	}
	hf := &httpFault{}
	errors.As(err, &hf)
	at := hf.at
	if at.IsZero() {
		at = c.now().Add(wait)
	}
	said := hf.said
	if said == "" {
		said = err.Error()
	}
	return &httpFault{url: hf.url, said: hf.said, after: hf.after, at: at,
		err: fmt.Errorf("%w: in %s (at %s), %s (%s)", ErrRetryLater, wait.Round(time.Second), at.Format(time.RFC1123), why, said)}
}

// now is the client's clock (Options.Now).
func (c *Client) now() time.Time {
	if c.clock != nil {
		return c.clock()
	}
	return time.Now()
}

// pause waits d, or until ctx ends (Options.Sleep replaces it).
func (c *Client) pause(ctx context.Context, d time.Duration) {
	if c.sleep != nil {
		c.sleep(ctx, d)
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
