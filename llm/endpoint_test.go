package llm_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/llm/llmtest"
)

// TestUnspecifiedAddressIsThisMachine: OLLAMA_HOST=0.0.0.0 (or ::), the
// address a server listens on, is reached on this machine and is local.
func TestUnspecifiedAddressIsThisMachine(t *testing.T) {
	s := fake(t)
	s.Always("ok", llmtest.AnyCall(), llmtest.Reply{Content: "ok"})
	port := s.Host()[strings.LastIndexByte(s.Host(), ':')+1:]
	for _, host := range []string{"0.0.0.0:" + port, "http://0.0.0.0:" + port} {
		c, err := llm.New(llm.Options{Host: host, Roles: roles(time.Second)})
		if err != nil {
			t.Fatal(err)
		}
		if !c.Loopback() || c.Host() != "127.0.0.1:"+port {
			t.Errorf("%s: loopback %v, host %s", host, c.Loopback(), c.Host())
		}
		if _, err := c.Chat(context.Background(), ask(config.RoleAgent, "hi")); err != nil {
			t.Errorf("%s: %v", host, err)
		}
	}
	c, err := llm.New(llm.Options{Host: "[::]:11434"})
	if err != nil || !c.Loopback() {
		t.Errorf(":: is not this machine: %v", err)
	}
}

// TestProxyForRemoteHostsOnly: HTTP_PROXY carries the requests to a server
// on another machine, never to one on this machine.
func TestProxyForRemoteHostsOnly(t *testing.T) {
	var proxied atomic.Int64
	var seen atomic.Value
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxied.Add(1)
		seen.Store(r.URL.String())
		w.Write([]byte(`{"version":"0.17.4"}`))
	}))
	t.Cleanup(proxy.Close)
	env := map[string]string{"HTTP_PROXY": proxy.URL}
	getenv := func(k string) string { return env[k] }
	remote, err := llm.New(llm.Options{Host: "gpu-box.example:11434", Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := remote.Version(context.Background()); err != nil || v != "0.17.4" || proxied.Load() != 1 {
		t.Fatalf("remote through the proxy: %q, %v, %d proxied", v, err, proxied.Load())
	}
	if u, _ := seen.Load().(string); !strings.HasPrefix(u, "http://gpu-box.example:11434/api/version") {
		t.Errorf("the proxy saw %q", u)
	}
	s := fake(t)
	local, err := llm.New(llm.Options{Host: s.Host(), Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := local.Version(context.Background()); err != nil || proxied.Load() != 1 {
		t.Errorf("a local server went through the proxy (%d proxied): %v", proxied.Load(), err)
	}
}

// TestAPIKeyFromNamedVariable: the key is read from the variable
// api_key_env names, sent as a bearer token, and never appears in an
// error.
func TestAPIKeyFromNamedVariable(t *testing.T) {
	var auth atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth.Store(r.Header.Get("Authorization"))
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":{"message":"invalid api key"}}`))
	}))
	t.Cleanup(srv.Close)
	const key = "sk-secret-123"
	c, err := llm.New(llm.Options{Server: config.Server{API: config.APIOpenAI, BaseURL: srv.URL + "/v1", APIKeyEnv: "MY_KEY"},
		Getenv: func(k string) string { return map[string]string{"MY_KEY": key}[k] }, Roles: roles(time.Second),
		Retry: llm.RetryPolicy{Attempts: 3, Backoff: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Chat(context.Background(), ask(config.RoleAgent, "hi"))
	if got, _ := auth.Load().(string); got != "Bearer "+key {
		t.Errorf("Authorization %q", got)
	}
	if err == nil || strings.Contains(err.Error(), key) {
		t.Errorf("error %v", err)
	}
}
