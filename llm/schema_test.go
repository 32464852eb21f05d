package llm

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

type inner struct {
	Name string `json:"name" maxLength:"5"`
}

type outer struct {
	Score  float64 `json:"score" minimum:"-1" maximum:"1" desc:"how good"`
	Count  int     `json:"count"`
	OK     bool    `json:"ok"`
	Kind   string  `json:"kind" enum:"a,b"`
	Items  []inner `json:"items" maxItems:"2"`
	hidden int
}

func TestSchemaOfAndValidate(t *testing.T) {
	s, err := SchemaOf(outer{})
	if err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(s)
	if !strings.HasPrefix(string(js), `{"type":"object","properties":{"score":`) || !strings.Contains(string(js), `"required":["score","count","ok","kind","items"]`) {
		t.Errorf("schema JSON %s", js)
	}
	tests := []struct{ in, err string }{
		{`{"score":0.5,"count":2,"ok":true,"kind":"a","items":[{"name":"x"}]}`, ""},
		{`{"score":2,"count":2,"ok":true,"kind":"a","items":[]}`, "reply.score: 2 above the maximum 1"},
		{`{"score":0,"count":2.5,"ok":true,"kind":"a","items":[]}`, "reply.count: 2.5 is not an integer"},
		{`{"score":0,"count":2,"ok":"yes","kind":"a","items":[]}`, "reply.ok: want true or false"},
		{`{"score":0,"count":2,"ok":true,"kind":"c","items":[]}`, `reply.kind: "c" is not one of a, b`},
		{`{"score":0,"count":2,"ok":true,"kind":"a","items":[{"name":"toolong"}]}`, "reply.items[0].name: 7 characters, at most 5"},
		{`{"score":0,"count":2,"ok":true,"kind":"a","items":[{"name":"a"},{"name":"b"},{"name":"c"}]}`, "3 items, at most 2"},
		{`{"score":0,"count":2,"ok":true,"kind":"a"}`, "reply.items: missing"},
		{`{"score":0,"count":2,"ok":true,"kind":"a","items":[],"extra":1}`, ""},
		{`[1]`, "want an object"},
	}
	for _, tc := range tests {
		var v any
		if err := json.Unmarshal([]byte(tc.in), &v); err != nil {
			t.Fatal(err)
		}
		err := s.Validate(v)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: unexpected %v", tc.in, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want %q", tc.in, err, tc.err)
		}
	}
}

func TestSchemaRejectsUnsupported(t *testing.T) {
	if _, err := SchemaOf(map[string]int{}); err == nil {
		t.Error("maps have no schema here; want an error")
	}
	type badTag struct {
		X string `json:"x" maxLength:"many"`
	}
	if _, err := SchemaOf(badTag{}); err == nil {
		t.Error("want an error for a bad tag")
	}
}

func TestExtractJSON(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a":1}`, `{"a":1}`},
		{"Sure!\n```json\n{\"a\":1}\n```\nDone.", `{"a":1}`},
		{`text {"a":{"b":2}} more`, `{"a":{"b":2}}`},
		{`no json`, ``},
	}
	for _, tc := range tests {
		if got := extractJSON(tc.in); got != tc.want {
			t.Errorf("extractJSON(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSchemaListOfStrings(t *testing.T) {
	type reply struct {
		Titles []string `json:"titles" maxItems:"3" maxLength:"10"`
	}
	s, err := SchemaOf(reply{})
	if err != nil {
		t.Fatal(err)
	}
	p := s.Properties["titles"]
	if p.MaxItems == nil || *p.MaxItems != 3 || p.Items.MaxLength == nil || *p.Items.MaxLength != 10 || p.MaxLength != nil || p.Items.MaxItems != nil {
		js, _ := json.Marshal(s)
		t.Fatalf("list-of-strings tags misplaced: %s", js)
	}
}

// withOptional has an optional part: a reply may lack it, and one whose
// part does not match keeps the rest (decodeInto leaves the part nil).
type withOptional struct {
	Note   *inner `json:"note" optional:"true"`
	Action string `json:"action" maxLength:"10"`
}

func TestOptionalPartsAreLeftOutNotFailed(t *testing.T) {
	s, err := SchemaOf(withOptional{})
	if err != nil {
		t.Fatal(err)
	}
	if js, _ := json.Marshal(s); !strings.Contains(string(js), `"required":["action"]`) || !strings.Contains(string(js), `"note":{`) {
		t.Errorf("schema JSON %s: want note among the properties, only action required", js)
	}
	tests := []struct {
		in, err string
		note    bool // the decoded value has its note
	}{
		{`{"note":{"name":"x"},"action":"look"}`, "", true},
		{`{"action":"look"}`, "", false},
		{`{"note":{"name":"toolong"},"action":"look"}`, "", false},
		{`{"note":"not an object","action":"look"}`, "", false},
		{`{"note":{"name":"x"},"action":"far too long an action"}`, "reply.action: 22 characters, at most 10", false},
		{`{"note":{"name":"x"}}`, "reply.action: missing", false},
	}
	for _, tc := range tests {
		var v withOptional
		_, err := decodeInto(s, tc.in, &v)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: unexpected %v", tc.in, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want %q", tc.in, err, tc.err)
		case tc.err == "" && (v.Note != nil) != tc.note:
			t.Errorf("%s: note %+v, want present %v", tc.in, v.Note, tc.note)
		case tc.err == "" && v.Action != "look":
			t.Errorf("%s: action %q", tc.in, v.Action)
		}
	}
}

// embedded adds a part before another struct's fields, as encoding/json
// reads them: the fields are the object's own.
type embedded struct {
	Note *inner `json:"note" optional:"true"`
	withOptionalAction
}

type withOptionalAction struct {
	Action string `json:"action" maxLength:"10"`
	hidden int
}

func TestEmbeddedStructFieldsAreTheObjects(t *testing.T) {
	s, err := SchemaOf(embedded{})
	if err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(s)
	if want := `{"type":"object","properties":{"note":{"type":"object","properties":{"name":{"type":"string","maxLength":5}},"required":["name"]},"action":{"type":"string","maxLength":10}},"required":["action"]}`; string(js) != want {
		t.Errorf("schema JSON\n%s\nwant\n%s", js, want)
	}
	var v embedded
	if _, err := decodeInto(s, `{"note":{"name":"x"},"action":"look"}`, &v); err != nil || v.Action != "look" || v.Note == nil || v.Note.Name != "x" {
		t.Errorf("decoded %+v, %v", v, err)
	}
}

// TestUnknownFieldsAreIgnored: a field the schema does not have (a memory
// object the request did not ask for, a key that differs from a known one
// only in case) is left out of the decoded value and reported by path;
// what the schema requires is still required.
func TestUnknownFieldsAreIgnored(t *testing.T) {
	s, err := SchemaOf(withOptional{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, in string
		ignored  []string
		err      string
		action   string
		note     bool
	}{
		{"a memory object not asked for", `{"action":"look","memory":{"title":"x","text":"y"}}`, []string{"reply.memory"}, "", "look", false},
		{"several, in order", `{"zeta":1,"action":"look","alpha":[1,2]}`, []string{"reply.alpha", "reply.zeta"}, "", "look", false},
		{"inside a known part", `{"action":"look","note":{"name":"x","extra":true}}`, []string{"reply.note.extra"}, "", "look", true},
		{"a key that differs in case only", `{"action":"look","Action":"quit"}`, []string{"reply.Action"}, "", "look", false},
		{"required stays required", `{"Action":"look","memory":{}}`, nil, "reply.action: missing", "", false},
		{"a known field still checked", `{"action":"far too long an action","memory":{}}`, nil, "reply.action: 22 characters", "", false},
		{"nothing unknown", `{"action":"look"}`, nil, "", "look", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var v withOptional
			ignored, err := decodeInto(s, tc.in, &v)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ignored, tc.ignored) {
				t.Errorf("ignored %q, want %q", ignored, tc.ignored)
			}
			if v.Action != tc.action || (v.Note != nil) != tc.note {
				t.Errorf("decoded %+v", v)
			}
		})
	}
}
