package oracle

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/lantern-if/lantern/config"
)

// reply generates a role's reply for a raw format and decodes it.
func reply(t *testing.T, role, format string) map[string]any {
	t.Helper()
	s, err := parseFormat(json.RawMessage(format))
	if err != nil {
		t.Fatal(err)
	}
	a, err := generic(role, s)
	if err != nil {
		t.Fatalf("%s: %v", format, err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(a.Content), &m); err != nil {
		t.Fatalf("reply %q is not a JSON object: %v", a.Content, err)
	}
	return m
}

func TestGenericRepliesHonourTheSchema(t *testing.T) {
	m := reply(t, config.RoleSupervisor, `{"type":"object","properties":{
		"title":{"type":"string","maxLength":10},
		"code":{"type":"string","pattern":"^[a-z]+$"},
		"pad":{"type":"string","minLength":40,"maxLength":60},
		"mood":{"type":"string","enum":["calm","bold"]},
		"n":{"type":"integer","minimum":4.5,"maximum":9},
		"x":{"type":"number","maximum":-1},
		"ok":{"type":"boolean"},
		"maybe":{"type":["null","string"]},
		"fixed":{"const":"v1"},
		"tags":{"type":"array","items":{"type":"string"},"minItems":2},
		"ids":{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer","minimum":1}},"required":["id"]},"minItems":1},
		"optional":{"type":"string"}
	},"required":["title","code","pad","mood","n","x","ok","maybe","fixed","tags","ids"]}`)
	if _, ok := m["optional"]; ok {
		t.Error("a property that is not required was written")
	}
	if s := m["title"].(string); len([]rune(s)) > 10 || s == "" {
		t.Errorf("title %q: want 1..10 characters", s)
	}
	if s := m["code"].(string); !regexp.MustCompile(`^[a-z]+$`).MatchString(s) {
		t.Errorf("code %q does not match its pattern", s)
	}
	if n := len([]rune(m["pad"].(string))); n < 40 || n > 60 {
		t.Errorf("pad has %d characters, want 40..60", n)
	}
	if m["mood"] != "calm" || m["n"] != 5.0 || m["x"] != -1.0 || m["ok"] != false || m["fixed"] != "v1" {
		t.Errorf("enum, integer range, number range, boolean or const wrong: %v", m)
	}
	if _, ok := m["maybe"].(string); !ok {
		t.Errorf("maybe %v: want a string (the first type that is not null)", m["maybe"])
	}
	if tags := m["tags"].([]any); len(tags) != 2 {
		t.Errorf("tags %v: want minItems 2", tags)
	}
	ids := m["ids"].([]any)
	if len(ids) != 1 || ids[0].(map[string]any)["id"] != 1.0 {
		t.Errorf("ids %v: want one object with id 1", ids)
	}
}

func TestPlainJSONFormat(t *testing.T) {
	if m := reply(t, config.RoleMemory, `"json"`); len(m) != 0 {
		t.Errorf(`format "json": %v, want an empty object`, m)
	}
	if _, err := parseFormat(json.RawMessage(`"yaml"`)); err == nil {
		t.Error(`format "yaml" accepted`)
	}
	if s, err := parseFormat(nil); s != nil || err != nil {
		t.Errorf("no format: %v, %v", s, err)
	}
}

func TestImpossiblePatternIsAnError(t *testing.T) {
	s, err := parseFormat(json.RawMessage(`{"type":"object","properties":{"id":{"type":"string","pattern":"^[0-9]{8}-[A-Z]{3}$"}},"required":["id"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := generic(config.RoleMemory, s); err == nil || !strings.Contains(err.Error(), "pattern") {
		t.Errorf("a pattern no candidate matches: %v, want an error naming the pattern", err)
	}
}

func TestAgentReplyForAnUnknownShape(t *testing.T) {
	o := New(Options{Script: []string{"open mailbox"}})
	req := &api.ChatRequest{Model: ModelName, Messages: []api.Message{{Role: "user", Content: "Turn 1. Location: L1 West of House."}},
		Format: json.RawMessage(`{"type":"object","properties":{"action":{"type":"string","maxLength":4},"confidence":{"type":"integer","minimum":1,"maximum":3}},"required":["action","confidence"]}`)}
	a, err := o.respond("", config.RoleAgent, req)
	if err != nil {
		t.Fatal(err)
	}
	if a.Content != `{"action":"open","confidence":1}` {
		t.Errorf("reply %s", a.Content)
	}
}
