package llm

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ollama/ollama/api"
)

// Tool is a function a model may call: its name, what it does, its
// parameters (an object schema) and the Go function that runs it.
type Tool struct {
	Name        string
	Description string
	Params      *Schema
	Run         func(ctx context.Context, args json.RawMessage) (string, error)
}

// NewTool declares a tool from a Go function whose argument is a struct;
// the struct's schema (see Schema) describes the parameters.
func NewTool[A any](name, description string, fn func(context.Context, A) (string, error)) (Tool, error) {
	var zero A
	s, err := SchemaOf(zero)
	if err != nil {
		return Tool{}, fmt.Errorf("tool %s: %w", name, err)
	}
	if s.Type != "object" {
		return Tool{}, fmt.Errorf("tool %s: arguments must be a struct", name)
	}
	return Tool{Name: name, Description: description, Params: s, Run: func(ctx context.Context, raw json.RawMessage) (string, error) {
		var a A
		if _, err := decodeInto(s, string(raw), &a); err != nil {
			return "", fmt.Errorf("arguments: %w", err)
		}
		return fn(ctx, a)
	}}, nil
}

func (t Tool) apiTool() (api.Tool, error) {
	params, err := json.Marshal(t.Params)
	if err != nil {
		return api.Tool{}, err
	}
	at := api.Tool{Type: "function", Function: api.ToolFunction{Name: t.Name, Description: t.Description}}
	if err := json.Unmarshal(params, &at.Function.Parameters); err != nil {
		return api.Tool{}, fmt.Errorf("tool %s parameters: %w", t.Name, err)
	}
	return at, nil
}

// RunTools chats with tools: each tool call the model makes is run and its
// result fed back, for at most maxRounds rounds; the reply after the last
// round without tool calls is returned. A tool's error goes back to the
// model as its result, so the model can recover.
func (c *Client) RunTools(ctx context.Context, req Request, tools []Tool, maxRounds int) (Reply, error) {
	byName := map[string]Tool{}
	for _, t := range tools {
		byName[t.Name] = t
	}
	req.Tools = tools
	msgs := append([]Message(nil), req.Messages...)
	for round := 0; ; round++ {
		req.Messages = msgs
		reply, err := c.Chat(ctx, req)
		if err != nil || len(reply.ToolCalls) == 0 {
			return reply, err
		}
		if round >= maxRounds {
			return reply, c.roleError(req.Role, round+1, ErrToolLoop)
		}
		msgs = append(msgs, Message{Role: "assistant", Content: reply.Content, ToolCalls: reply.ToolCalls})
		for _, call := range reply.ToolCalls {
			result := ""
			t, ok := byName[call.Name]
			switch {
			case !ok:
				result = fmt.Sprintf("error: there is no tool %q", call.Name)
			default:
				out, err := t.Run(ctx, call.Arguments)
				if err != nil {
					out = "error: " + err.Error()
				}
				result = out
			}
			msgs = append(msgs, Message{Role: "tool", ToolName: call.Name, Content: result})
		}
	}
}
