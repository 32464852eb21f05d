package cli

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lantern-if/lantern/oracle"
)

// oracleServer is an oracle on a test server, with the demo's walkthrough.
func oracleServer(t *testing.T, repo string) *httptest.Server {
	t.Helper()
	cmds, err := oracle.LoadScript(filepath.Join(repo, "game_files", "demo", "walkthrough.txt"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(oracle.New(oracle.Options{Script: cmds}))
	t.Cleanup(srv.Close)
	return srv
}

// TestDoctorWarnsOfServerSettings: doctor warns when api_key_env names a
// variable that is unset or empty (no key is sent), and when num_ctx or
// keep_alive are set for roles on the OpenAI protocol (which has neither);
// the warnings do not fail the check.
func TestDoctorWarnsOfServerSettings(t *testing.T) {
	dir, repo := isolate(t)
	srv := oracleServer(t, repo)
	toml := "[server]\napi = \"openai\"\nbase_url = \"" + srv.URL + "/v1\"\napi_key_env = \"LANTERN_TEST_KEY\"\n" +
		"[roles.agent]\nnum_ctx = 8192\nkeep_alive = \"5m\"\n[roles.critic]\napi_key_env = \"LANTERN_TEST_CRITIC_KEY\"\n"
	if err := os.WriteFile(filepath.Join(dir, "lantern.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		key   *string // LANTERN_TEST_KEY; nil: unset
		says  []string
		never []string
	}{
		{"unset", nil, []string{"api_key_env names LANTERN_TEST_KEY (in [server]), which is not set: no API key is sent",
			"export LANTERN_TEST_KEY=YOUR_KEY"}, nil},
		{"empty", ptr(" "), []string{"api_key_env names LANTERN_TEST_KEY (in [server]), which is empty: no API key is sent"}, []string{"which is not set"}},
		{"set", ptr("sk-test"), nil, []string{"LANTERN_TEST_KEY (in"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("LANTERN_TEST_KEY", "")
			if tc.key == nil {
				os.Unsetenv("LANTERN_TEST_KEY")
			} else {
				t.Setenv("LANTERN_TEST_KEY", *tc.key)
			}
			t.Setenv("LANTERN_TEST_CRITIC_KEY", "sk-critic")
			code, out, _ := runCLI(t, "", "doctor", "--model", "oracle")
			if code != exitOK {
				t.Fatalf("doctor: exit %d\n%s", code, out)
			}
			says := append([]string{"warn  num_ctx is not sent on the OpenAI protocol, which has no such setting: agent (8192)",
				"warn  keep_alive is not sent on the OpenAI protocol, which has no such setting: agent (5m0s)"}, tc.says...)
			for _, w := range says {
				if !strings.Contains(out, w) {
					t.Errorf("doctor output lacks %q:\n%s", w, out)
				}
			}
			for _, w := range append([]string{"LANTERN_TEST_CRITIC_KEY"}, tc.never...) {
				if strings.Contains(out, w) {
					t.Errorf("doctor output says %q:\n%s", w, out)
				}
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestDoctorAndModelsNameTheServerThatFailed: a base URL without /v1 makes
// doctor and models say to add /v1, without empty role or model fields; a
// server that answers /api/version with 1 GB is a server that answers
// wrongly, not one that does not answer, and doctor reads a bounded part
// of it.
func TestDoctorAndModelsNameTheServerThatFailed(t *testing.T) {
	_, repo := isolate(t)
	srv := oracleServer(t, repo)
	var mu sync.Mutex
	sent := 0
	huge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/version" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"version":"`))
		block := []byte(strings.Repeat("9", 64<<10))
		for n := 0; n < 1<<30; n += len(block) {
			if _, err := w.Write(block); err != nil {
				break
			}
			mu.Lock()
			sent += len(block)
			mu.Unlock()
		}
	}))
	t.Cleanup(huge.Close)
	hugeHost := strings.TrimPrefix(huge.URL, "http://")
	tests := []struct {
		name  string
		args  []string
		says  []string
		never []string
	}{
		{"doctor without /v1", []string{"doctor", "--api", "openai", "--base-url", srv.URL, "--model", "oracle"},
			[]string{"FAIL  the server at " + strings.TrimPrefix(srv.URL, "http://") + " (from flag --base-url) answers, but not as an OpenAI-compatible server does",
				"fix: nothing answers at " + srv.URL + "/models", "the base URL is likely " + srv.URL + "/v1"},
			[]string{"no OpenAI-compatible server answers", "role ,", "model ,"}},
		{"models without /v1", []string{"models", "--api", "openai", "--base-url", srv.URL},
			[]string{"OpenAI-compatible server at " + strings.TrimPrefix(srv.URL, "http://"), "the base URL is likely " + srv.URL + "/v1"},
			[]string{"role ,", "model ,", "for the  role", "does not serve ;"}},
		{"doctor on a 1 GB version", []string{"doctor", "--host", hugeHost, "--model", "oracle"},
			[]string{"FAIL  the server at " + hugeHost, "answers, but not as Ollama does", "server reply too large", "is something else listening at " + hugeHost},
			[]string{"no Ollama server answers"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("OLLAMA_HOST", "127.0.0.1:9")
			code, out, errb := runCLIWithin(t, 30*time.Second, tc.args...)
			all := out + errb
			if code == exitOK {
				t.Fatalf("%v: exit 0\n%s", tc.args, all)
			}
			for _, w := range tc.says {
				if !strings.Contains(all, w) {
					t.Errorf("output lacks %q:\n%s", w, all)
				}
			}
			for _, w := range tc.never {
				if strings.Contains(all, w) {
					t.Errorf("output says %q:\n%s", w, all)
				}
			}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	if sent > 64<<20 {
		t.Errorf("the 1 GB version: %d MB sent before doctor stopped reading", sent>>20)
	}
}

// TestHostileRefusalSaidOnce: a server that refuses the key (401, or an
// auth error inside a 200 stream) gets one chat request from `run`, which
// says so once and stops: no retry, no turn played again.
func TestHostileRefusalSaidOnce(t *testing.T) {
	const keyError = `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`
	tests := []struct {
		name   string
		answer func(w http.ResponseWriter)
	}{
		{"HTTP 401", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(keyError))
		}},
		{"auth error in a 200 stream", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Write([]byte("data: " + keyError + "\n\n"))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := isolate(t)
			var mu sync.Mutex
			chats := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/v1/models":
					w.Header().Set("Content-Type", "application/json")
					w.Write([]byte(`{"object":"list","data":[{"id":"m","object":"model","owned_by":"x"}]}`))
				case "/v1/chat/completions":
					mu.Lock()
					chats++
					mu.Unlock()
					tc.answer(w)
				default:
					http.NotFound(w, r)
				}
			}))
			t.Cleanup(srv.Close)
			t.Setenv("OLLAMA_HOST", "127.0.0.1:9")
			code, out, errb := runCLIWithin(t, 30*time.Second, "run", "--headless", "--api", "openai", "--base-url", srv.URL+"/v1",
				"--model", "m", "--max-turns", "3", "--workdir", filepath.Join(dir, "wd"))
			if code == exitOK {
				t.Errorf("exit 0\n%s%s", out, errb)
			}
			mu.Lock()
			n := chats
			mu.Unlock()
			if n != 1 {
				t.Errorf("%d chat requests, want 1\n%s", n, errb)
			}
			if c := strings.Count(errb, "Incorrect API key provided"); c != 1 {
				t.Errorf("the refusal said %d times, want once:\n%s", c, errb)
			}
			if !strings.Contains(errb, "not authorized by the server") || !strings.Contains(errb, "api_key_env") {
				t.Errorf("the message does not say what to do:\n%s", errb)
			}
		})
	}
}
