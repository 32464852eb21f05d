package llm_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm"
)

// TestServerSlots: the server's slots come from its /props (llama.cpp's
// total_slots, at the root even for an OpenAI base under /v1); a server
// without it, or with a bad answer, says nothing (0). Every call names the
// client's conversation, the same on each.
func TestServerSlots(t *testing.T) {
	convs := map[string]bool{}
	for _, c := range []struct {
		api, body string
		status    int
		want      int
	}{
		{config.APIOllama, `{"total_slots": 4}`, http.StatusOK, 4},
		{config.APIOpenAI, `{"total_slots": 2}`, http.StatusOK, 2},
		{config.APIOllama, `404 page not found`, http.StatusNotFound, 0},
		{config.APIOllama, `{"total_slots": "many"}`, http.StatusOK, 0},
		{config.APIOllama, `{"total_slots": 0}`, http.StatusOK, 0},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			convs[r.Header.Get(llm.ConversationHeader)] = true
			if r.URL.Path != "/props" {
				http.NotFound(w, r)
				return
			}
			w.WriteHeader(c.status)
			w.Write([]byte(c.body))
		}))
		host := strings.TrimPrefix(srv.URL, "http://")
		opts := llm.Options{Host: host}
		if c.api == config.APIOpenAI {
			opts.Server = config.Server{API: config.APIOpenAI, BaseURL: srv.URL + "/v1"}
		}
		client, err := llm.New(opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := client.ServerSlots(t.Context()); got != c.want {
			t.Errorf("%s %s: %d slots, want %d", c.api, c.body, got, c.want)
		}
		srv.Close()
	}
	if len(convs) != 5 || convs[""] {
		t.Errorf("conversations %v: want a name of its own for each client", convs)
	}
	if llm.SlotsText(1) != "one request at a time" || llm.SlotsText(3) != "3 requests at once" {
		t.Errorf("slot texts %q, %q", llm.SlotsText(1), llm.SlotsText(3))
	}
}
