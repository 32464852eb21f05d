package cli

import (
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/oracle"
)

// doctor asks every host of the list and says where the list came from;
// models and doctor go on with the host that answers when the first does
// not.
func TestDoctorAndModelsSkipADeadHost(t *testing.T) {
	_, repo := isolate(t)
	cmds, err := oracle.LoadScript(filepath.Join(repo, "game_files", "demo", "walkthrough.txt"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(oracle.New(oracle.Options{Script: cmds}))
	defer srv.Close()
	live := strings.TrimPrefix(srv.URL, "http://")
	t.Setenv("OLLAMA_HOST", "127.0.0.1:9")
	t.Setenv("LANTERN_SERVER_HOSTS", "127.0.0.1:9, "+live)
	_, out, _ := runCLI(t, "", "doctor", "--model", "oracle")
	for _, want := range []string{"host 127.0.0.1:9 (of the list from environment LANTERN_SERVER_HOSTS) does not answer", "host " + live + " answers",
		"at " + live + " (host from the list of environment LANTERN_SERVER_HOSTS)"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}
	code, out, stderr := runCLI(t, "", "models")
	if code != exitOK || !strings.Contains(out, "oracle") || !strings.Contains(stderr, "host 127.0.0.1:9 does not answer, skipped") {
		t.Errorf("models with a dead first host: exit %d\n%s\n%s", code, out, stderr)
	}
}
