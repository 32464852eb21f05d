package session

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/llm/llmtest"
	"github.com/lantern-if/lantern/managers/memsynth"
	"github.com/lantern-if/lantern/memory"
	"github.com/lantern-if/lantern/oracle"
)

// oracleWithMemory is Zork I's oracle for every role but memory, whose
// requests go to a scripted server that writes memories: the oracle itself
// never remembers anything.
func oracleWithMemory(t *testing.T) (*llm.Client, *llmtest.Server) {
	t.Helper()
	orc := oracle.New(oracle.Options{Script: walkthrough(t), NoThinking: true})
	fake := llmtest.New(t)
	fake.AddModel(oracle.ModelName, oracle.ContextLength)
	toFake := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: fake.Host()})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/chat" && r.Header.Get("X-Lantern-Role") == config.RoleMemory {
			toFake.ServeHTTP(w, r)
			return
		}
		orc.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	roles := config.DefaultRoles()
	for k, r := range roles {
		r.Model, r.Timeout = oracle.ModelName, 10*time.Second
		roles[k] = r
	}
	client, err := llm.New(llm.Options{Host: strings.TrimPrefix(srv.URL, "http://"), Roles: roles})
	if err != nil {
		t.Fatal(err)
	}
	return client, fake
}

// playZork opens a session on dir and plays the walkthrough's first turns
// with the oracle; it returns the session, closed.
func playZork(t *testing.T, dir string, client *llm.Client, triggers []string, turns int) *Session {
	t.Helper()
	story, _ := zork(t)
	sess, err := Open(Options{Story: story, Name: "zork1.z3", Binding: zorkBinding(t), WorkDir: dir, Client: client,
		Agent: engine.LLMAgent{Client: client}, MemoryTriggers: triggers, Engine: engine.Config{Seed: 12, CriticThreshold: -0.2, MaxTurns: turns}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	for _, e := range errorsIn(runAll(t, sess)) {
		t.Errorf("error: %s", e)
	}
	return sess
}

// With the seed triggers, "Get lamp → Taken." in Zork I's Living Room
// calls the memory model and its answer is kept at the Living Room; a
// restarted session (a new process on the same work dir) knows the rooms
// already seen and asks for no first-visit memory of them.
func TestTakeLampIsRememberedAndRestartKnowsRooms(t *testing.T) {
	client, fake := oracleWithMemory(t)
	fake.Always("the lamp", llmtest.PromptContains("): Get lamp\n"),
		memReply(true, "SUCCESS", "Brass lantern taken", "The brass lantern can be taken here: a light for dark places.", "ACTIVE"))
	fake.Always("nothing else", llmtest.Role(config.RoleMemory), memReply(false, "NOTE", "", "", "ACTIVE"))
	dir := t.TempDir()
	seed := memsynth.SeedTriggers().Names()

	first := playZork(t, dir, client, seed, 14)
	living := 0
	for _, d := range decisions(t, first) {
		if strings.Contains(strings.Join(d.Triggers, ";"), "inventory +") && d.Outcome == "stored" {
			living = d.LocationID
		}
	}
	if living == 0 {
		t.Fatalf("taking the lamp stored no memory; decisions: %+v", decisions(t, first))
	}
	if first.Map.Name(living) != "Living Room" {
		t.Errorf("the lamp's memory is at L%d %s, want the Living Room", living, first.Map.Name(living))
	}
	f, err := memory.Load(first.Dir + "/Memories.md")
	if err != nil {
		t.Fatal(err)
	}
	sec, ok := f.Section(living)
	var lessons []memory.Memory // the model's; the ground truth's ITEM entry is there too
	for _, m := range sec.Memories {
		if !m.Category.GroundTruth() {
			lessons = append(lessons, m)
		}
	}
	if !ok || len(lessons) != 1 || lessons[0].Title != "Brass lantern taken" || lessons[0].Turn != 13 {
		t.Fatalf("Memories.md at the Living Room: %+v", sec)
	}
	firstVisits := countTrigger(decisions(t, first), "first visit")
	if firstVisits < 5 {
		t.Errorf("the first session asked about %d first visits, want one per new room", firstVisits)
	}
	n1, rooms := len(decisions(t, first)), first.Map.Status().Rooms
	first.Close()

	// The lean triggers, so only what the story has not seen would call
	// the memory model: the same rooms again call it for nothing new.
	before := len(fake.ChatRequests())
	second := playZork(t, dir, client, nil, 14)
	if n := countTrigger(decisions(t, second)[n1:], "first visit"); n != 0 {
		t.Errorf("the restarted session asked about %d first visits of known rooms", n)
	}
	for _, r := range fake.ChatRequests()[before:] {
		if strings.Contains(r.Prompt(), "first visit") {
			t.Errorf("a memory request after the restart names a first visit:\n%s", r.Prompt())
		}
	}
	if got := second.Map.Status().Rooms; got != rooms || rooms < 7 {
		t.Errorf("the restarted session's map has %d rooms, want the first session's %d", got, rooms)
	}
}

func decisions(t *testing.T, s *Session) []decisionRow {
	t.Helper()
	ds, err := s.DB.Decisions(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]decisionRow, 0, len(ds))
	for _, d := range ds {
		out = append(out, decisionRow{LocationID: d.LocationID, Triggers: d.Triggers, Outcome: d.Outcome})
	}
	return out
}

type decisionRow struct {
	LocationID int
	Triggers   []string
	Outcome    string
}

func countTrigger(ds []decisionRow, why string) int {
	n := 0
	for _, d := range ds {
		for _, tr := range d.Triggers {
			if tr == why {
				n++
			}
		}
	}
	return n
}
