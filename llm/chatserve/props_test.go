package chatserve

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestPropsSaysTheSlots: GET /props reports total_slots as llama.cpp's
// server does when the server has slots to tell of, and is not found
// (as on Ollama) when it has none; neither is an unexpected request.
func TestPropsSaysTheSlots(t *testing.T) {
	for _, c := range []struct {
		slots, status, want int
	}{{4, http.StatusOK, 4}, {0, http.StatusNotFound, 0}} {
		unexpected := 0
		srv := httptest.NewServer(New(Options{Backend: &echo{}, Slots: c.slots, Unexpected: func(string, string) { unexpected++ }}))
		resp, err := http.Get(srv.URL + "/props")
		if err != nil {
			t.Fatal(err)
		}
		var props struct {
			TotalSlots int `json:"total_slots"`
		}
		json.NewDecoder(resp.Body).Decode(&props)
		resp.Body.Close()
		srv.Close()
		if resp.StatusCode != c.status || props.TotalSlots != c.want || unexpected != 0 {
			t.Errorf("slots %d: status %d, total_slots %d, %d unexpected; want %d, %d, none", c.slots, resp.StatusCode, props.TotalSlots, unexpected, c.status, c.want)
		}
	}
}
