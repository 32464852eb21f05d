package llm

import (
	"errors"
	"fmt"
	"strings"

	"github.com/lantern-if/lantern/config"
)

// Typed errors, tested with errors.Is. Each *Error names what went wrong in
// words a user understands and wraps one of these.
var (
	// ErrUnreachable: no model server answers at the host.
	ErrUnreachable = errors.New("model server unreachable")
	// ErrModelNotFound: the server does not have the model.
	ErrModelNotFound = errors.New("model not found")
	// ErrTimeout: the call took longer than the role's timeout.
	ErrTimeout = errors.New("model call timed out")
	// ErrServer: the server answered with an error status.
	ErrServer = errors.New("model server error")
	// ErrBadRequest: the server refused the request (HTTP 400).
	ErrBadRequest = errors.New("request refused by the server")
	// ErrStreamCut: the reply stream ended before the model finished.
	ErrStreamCut = errors.New("reply stream cut off")
	// ErrMalformed: the server sent something that is not its wire format.
	ErrMalformed = errors.New("malformed reply from the server")
	// ErrInvalidReply: the model's reply did not match the schema, even after
	// the format reminders.
	ErrInvalidReply = errors.New("model reply does not match the schema")
	// ErrEmptyReply: the model said nothing.
	ErrEmptyReply = errors.New("empty reply from the model")
	// ErrContextOverflow: the prompt cannot fit the model's context.
	ErrContextOverflow = errors.New("prompt does not fit the model's context")
	// ErrReplyLength: a structured reply (or one whose caller asked for
	// whole replies) was cut off at its length limit (Ollama's done_reason
	// "length"); a free-text reply cut at num_predict is not an error.
	ErrReplyLength = errors.New("reply cut off at its length limit")
	// ErrUnsupported: the model lacks a capability the role needs.
	ErrUnsupported = errors.New("model lacks a needed capability")
	// ErrReplyTooLarge: the reply grew past the client's cap
	// (Options.MaxReplyBytes); it is cut off, not retried.
	ErrReplyTooLarge = errors.New("model reply too large")
	// ErrBodyTooLarge: a server's reply other than a model's text (a
	// listing, a description, a stream's framing) grew past its cap; it is
	// not retried.
	ErrBodyTooLarge = errors.New("server reply too large")
	// ErrUnauthorized: the server wants credentials (HTTP 401 or 403, or
	// an error of that kind inside a stream): sent once, never retried.
	ErrUnauthorized = errors.New("not authorized by the server")
	// ErrRetryLater: the server asked to be called again (Retry-After on a
	// 429 or 503) later than a call waits (RetryPolicy.MaxRetryAfter, or
	// the role's timeout): the call stops at once and says when.
	ErrRetryLater = errors.New("the server asked to be called again later")
	// ErrToolLoop: the model kept calling tools past the allowed rounds.
	ErrToolLoop = errors.New("too many tool-call rounds")
)

// Error is a failed call: which role and model, on which server (its
// protocol and address), after how many attempts, and why. A call made for
// no role (a listing, the version) leaves Role and Model empty, and the
// message leaves them out.
type Error struct {
	Role  string
	Model string
	Host  string
	API   string // config.APIOllama (or empty) or config.APIOpenAI
	// URL is the request that failed, when the failure is about it (an
	// HTTP error status); its credentials are never in it.
	URL      string
	Attempts int
	Err      error  // one of the sentinels above, possibly wrapping a cause
	Hint     string // how to fix it, when there is something to do
}

func (e *Error) Error() string {
	var parts []string
	if e.Role != "" {
		parts = append(parts, "role "+e.Role)
	}
	if e.Model != "" {
		parts = append(parts, "model "+e.Model)
	}
	if e.Host != "" {
		parts = append(parts, ServerName(e.API)+" at "+e.Host)
	}
	if e.Attempts > 1 {
		parts = append(parts, fmt.Sprintf("%d attempts", e.Attempts))
	}
	msg := fmt.Sprint(e.Err)
	if len(parts) > 0 {
		msg += " (" + strings.Join(parts, ", ") + ")"
	}
	if e.Hint != "" {
		msg += ": " + e.Hint
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// transient reports whether another attempt may succeed.
func transient(err error) bool {
	return errors.Is(err, ErrUnreachable) || errors.Is(err, ErrServer) || errors.Is(err, ErrStreamCut) ||
		errors.Is(err, ErrMalformed) || errors.Is(err, ErrEmptyReply)
}

// ServerName names a protocol's server for a person: "Ollama" for
// Ollama's API, "OpenAI-compatible server" for chat completions (llama.cpp,
// LM Studio, vLLM, Ollama's /v1).
func ServerName(api string) string {
	if api == config.APIOpenAI {
		return "OpenAI-compatible server"
	}
	return "Ollama"
}
