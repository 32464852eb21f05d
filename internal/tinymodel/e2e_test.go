package tinymodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// The end-to-end tests below run against the server of
// scripts/ollama-test-server.sh when LANTERN_OLLAMA_E2E=1 and OLLAMA_HOST
// are set. They check the models this package makes, through the plain HTTP
// API (only llm/ imports Ollama's client).

func e2eHost(t *testing.T) string {
	t.Helper()
	host := os.Getenv("OLLAMA_HOST")
	if os.Getenv("LANTERN_OLLAMA_E2E") != "1" || host == "" {
		t.Skip("set LANTERN_OLLAMA_E2E=1 and OLLAMA_HOST (scripts/ollama-test-server.sh start)")
	}
	if !strings.Contains(host, "://") {
		host = "http://" + host
	}
	return strings.TrimSuffix(host, "/")
}

var e2eClient = &http.Client{Timeout: 60 * time.Second}

func post(t *testing.T, url string, body any, out any) int {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := e2eClient.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if out != nil && resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s: %v in %s", url, err, data)
		}
	}
	return resp.StatusCode
}

type chatReply struct {
	Message struct {
		Content   string `json:"content"`
		Thinking  string `json:"thinking"`
		ToolCalls []struct {
			Function struct {
				Name      string         `json:"name"`
				Arguments map[string]any `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"message"`
	Done       bool   `json:"done"`
	DoneReason string `json:"done_reason"`
	EvalCount  int    `json:"eval_count"`
}

func chat(t *testing.T, host string, req map[string]any) chatReply {
	t.Helper()
	req["stream"] = false
	var r chatReply
	if code := post(t, host+"/api/chat", req, &r); code != http.StatusOK {
		t.Fatalf("/api/chat: HTTP %d", code)
	}
	return r
}

func TestE2ETinyModelsServed(t *testing.T) {
	host := e2eHost(t)
	resp, err := e2eClient.Get(host + "/api/version")
	if err != nil {
		t.Fatal(err)
	}
	var v struct{ Version string }
	err = json.NewDecoder(resp.Body).Decode(&v)
	resp.Body.Close()
	if err != nil || v.Version != "0.17.4" {
		t.Errorf("version %q (%v), want 0.17.4", v.Version, err)
	}
	for model, want := range map[string][]string{
		"lantern-tiny":       {"completion", "tools"},
		"lantern-tiny-think": {"completion", "thinking", "tools"},
	} {
		var show struct {
			Capabilities []string       `json:"capabilities"`
			ModelInfo    map[string]any `json:"model_info"`
		}
		if code := post(t, host+"/api/show", map[string]any{"model": model}, &show); code != http.StatusOK {
			t.Fatalf("show %s: HTTP %d", model, code)
		}
		slices.Sort(show.Capabilities)
		if fmt.Sprint(show.Capabilities) != fmt.Sprint(want) {
			t.Errorf("%s capabilities %v, want %v", model, show.Capabilities, want)
		}
		if got := show.ModelInfo["llama.context_length"]; got != float64(ContextLength) {
			t.Errorf("%s context length %v", model, got)
		}
	}
}

func TestE2ETinyModelStructuredOutput(t *testing.T) {
	host := e2eHost(t)
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"action": map[string]any{"type": "string", "maxLength": 30},
			"score":  map[string]any{"type": "integer", "minimum": -10, "maximum": 10},
			"mood":   map[string]any{"type": "string", "enum": []string{"calm", "alarmed"}},
		},
		"required": []string{"action", "score", "mood"},
	}
	var first string
	for seed := 1; seed <= 5; seed++ {
		r := chat(t, host, map[string]any{
			"model":    "lantern-tiny",
			"messages": []map[string]any{{"role": "user", "content": "West of House. What now?"}},
			"format":   schema,
			"options":  map[string]any{"seed": seed, "num_predict": 256, "temperature": 0.6},
		})
		var got struct {
			Action *string `json:"action"`
			Score  *int    `json:"score"`
			Mood   *string `json:"mood"`
		}
		dec := json.NewDecoder(strings.NewReader(r.Message.Content))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&got); err != nil || got.Action == nil || got.Score == nil || got.Mood == nil {
			t.Fatalf("seed %d: %q is not the schema's JSON (%v; done_reason %s)", seed, r.Message.Content, err, r.DoneReason)
		}
		if n := len([]rune(*got.Action)); n > 30 || *got.Score < -10 || *got.Score > 10 || (*got.Mood != "calm" && *got.Mood != "alarmed") {
			t.Errorf("seed %d: %q breaks the schema", seed, r.Message.Content)
		}
		for _, c := range r.Message.Content {
			if c < ' ' && c != '\n' && c != '\t' || c > '~' {
				t.Errorf("seed %d: %q holds %q, not printable ASCII", seed, r.Message.Content, c)
				break
			}
		}
		if seed == 1 {
			first = r.Message.Content
		}
	}
	again := chat(t, host, map[string]any{
		"model":    "lantern-tiny",
		"messages": []map[string]any{{"role": "user", "content": "West of House. What now?"}},
		"format":   schema,
		"options":  map[string]any{"seed": 1, "num_predict": 256, "temperature": 0.6},
	})
	if again.Message.Content != first {
		t.Errorf("seed 1 gave %q, then %q", first, again.Message.Content)
	}
}

func TestE2ETinyModelThinkingAndTools(t *testing.T) {
	host := e2eHost(t)
	msgs := []map[string]any{{"role": "user", "content": "Where am I?"}}
	r := chat(t, host, map[string]any{
		"model": "lantern-tiny-think", "messages": msgs, "think": true,
		"options": map[string]any{"seed": 3, "num_predict": 32},
	})
	if r.Message.Thinking == "" || r.Message.Content != "" || r.DoneReason != "length" {
		t.Errorf("think: thinking %q, content %q, done_reason %s; want thinking only, to num_predict", r.Message.Thinking, r.Message.Content, r.DoneReason)
	}
	r = chat(t, host, map[string]any{
		"model": "lantern-tiny-think", "messages": msgs, "think": false,
		"options": map[string]any{"seed": 3, "num_predict": 32},
	})
	if r.Message.Thinking != "" || len(r.Message.Content) != 32 {
		t.Errorf("no think: thinking %q, content %q; want 32 characters of content", r.Message.Thinking, r.Message.Content)
	}

	tools := []map[string]any{{"type": "function", "function": map[string]any{
		"name": "recall", "description": "Recall memories of a location",
		"parameters": map[string]any{"type": "object", "required": []string{"location"},
			"properties": map[string]any{"location": map[string]any{"type": "string"}}},
	}}}
	call := map[string]any{"type": "object", "required": []string{"name", "arguments"}, "properties": map[string]any{
		"name": map[string]any{"type": "string", "enum": []string{"recall"}},
		"arguments": map[string]any{"type": "object", "required": []string{"location"}, "properties": map[string]any{
			// No braces in strings: Ollama 0.17.4 counts them when it decides
			// where a bare-JSON tool call ends.
			"location": map[string]any{"type": "string", "pattern": "^[A-Za-z ]{1,20}$"},
		}},
	}}
	r = chat(t, host, map[string]any{
		"model": "lantern-tiny", "messages": msgs, "tools": tools, "format": call,
		"options": map[string]any{"seed": 1, "num_predict": 128},
	})
	if len(r.Message.ToolCalls) != 1 || r.Message.ToolCalls[0].Function.Name != "recall" || r.Message.Content != "" {
		t.Fatalf("tool call: %+v", r.Message)
	}
	if _, ok := r.Message.ToolCalls[0].Function.Arguments["location"].(string); !ok {
		t.Errorf("tool call arguments %v", r.Message.ToolCalls[0].Function.Arguments)
	}

	if code := post(t, host+"/api/chat", map[string]any{"model": "lantern-no-such-model", "messages": msgs}, nil); code != http.StatusNotFound {
		t.Errorf("missing model: HTTP %d, want 404", code)
	}
}
