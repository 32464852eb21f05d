package llm_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm"
)

// TestModelIdentities: each server a role uses says what each model is:
// Ollama's /api/tags its digest, size and quantisation; an OpenAI base its
// /models id (and, when Ollama serves the base, /api/tags the rest); a
// server that cannot be asked, or does not list the model, gives an
// identity that says why.
func TestModelIdentities(t *testing.T) {
	s := fake(t)
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadHost := dead.Addr().String()
	dead.Close()
	withModel := func(m string) map[string]config.Role {
		rs := roles(time.Second)
		for k, r := range rs {
			r.Model = m
			rs[k] = r
		}
		return rs
	}
	tests := []struct {
		name      string
		opts      llm.Options
		show      bool // the model is described first (as a bench's preflight does)
		wantID    string
		digest    bool
		wantQuant string
		wantErr   string
	}{
		{name: "ollama", opts: llm.Options{Host: s.Host(), Roles: withModel(testModel)}, wantID: testModel, digest: true, wantQuant: "F32"},
		{name: "openai on Ollama's /v1", opts: llm.Options{Host: s.Host(), Roles: withModel(testModel),
			Server: config.Server{API: config.APIOpenAI, BaseURL: s.BaseURL()}}, show: true, wantID: testModel, digest: true, wantQuant: "F32"},
		{name: "openai, base not known as Ollama's", opts: llm.Options{Host: s.Host(), Roles: withModel(testModel),
			Server: config.Server{API: config.APIOpenAI, BaseURL: s.BaseURL()}}, wantID: testModel},
		{name: "model not listed", opts: llm.Options{Host: s.Host(), Roles: withModel("absent")}, wantErr: "/api/tags lists no absent"},
		{name: "openai model not listed", opts: llm.Options{Host: s.Host(), Roles: withModel("absent"),
			Server: config.Server{API: config.APIOpenAI, BaseURL: s.BaseURL()}}, wantErr: "/models lists no absent"},
		{name: "unreachable", opts: llm.Options{Host: deadHost, Roles: withModel(testModel)}, wantErr: "/api/tags: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := llm.New(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if tc.show {
				if _, err := c.Show(context.Background(), testModel); err != nil {
					t.Fatal(err)
				}
			}
			ids := c.ModelIdentities(context.Background())
			if len(ids) != 1 {
				t.Fatalf("%d identities for one model on one server: %+v", len(ids), ids)
			}
			id := ids[0]
			if id.API != config.ServerFor(tc.opts.Server, config.Role{}).API || !strings.HasPrefix(id.Server, "http://") || id.Server != c.ServerURL() {
				t.Errorf("identity names %q at %q", id.API, id.Server)
			}
			if tc.wantErr != "" {
				if !strings.Contains(id.Err, tc.wantErr) || id.Digest != "" {
					t.Errorf("identity %+v, want the error %q", id, tc.wantErr)
				}
				return
			}
			if id.Err != "" || id.ID != tc.wantID || (id.Digest != "") != tc.digest || id.Quantization != tc.wantQuant {
				t.Errorf("identity %+v: want id %q, a digest %v, quantisation %q", id, tc.wantID, tc.digest, tc.wantQuant)
			}
			if tc.digest && (len(id.Digest) != 64 || id.Parameters != "1M") {
				t.Errorf("digest %q, parameters %q", id.Digest, id.Parameters)
			}
		})
	}
}

// TestModelIdentitiesPerServer: several hosts and a role's own server are
// each asked once per model, in the roles' order; a dead host says so
// beside the live one.
func TestModelIdentitiesPerServer(t *testing.T) {
	a, b := fake(t), fake(t)
	b.AddModel("other", 4096)
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadHost := dead.Addr().String()
	dead.Close()
	rs := roles(time.Second)
	critic := rs[config.RoleCritic]
	critic.Model, critic.BaseURL = "other", "http://"+b.Host()
	rs[config.RoleCritic] = critic
	c, err := llm.New(llm.Options{Roles: rs, Server: config.Server{Hosts: a.Host() + "," + deadHost}})
	if err != nil {
		t.Fatal(err)
	}
	ids := c.ModelIdentities(context.Background())
	type seen struct{ model, server string }
	var got []seen
	for _, id := range ids {
		got = append(got, seen{id.Model, id.Server})
		switch {
		case id.Server == "http://"+deadHost:
			if !strings.Contains(id.Err, "/api/tags") {
				t.Errorf("the dead host's identity %+v", id)
			}
		case id.Err != "" || len(id.Digest) != 64:
			t.Errorf("identity %+v", id)
		}
	}
	want := []seen{{testModel, "http://" + a.Host()}, {testModel, "http://" + deadHost}, {"other", "http://" + b.Host()}}
	if len(got) != len(want) {
		t.Fatalf("identities %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("identity %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	// A cancelled context: every identity says why, none hangs.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, id := range c.ModelIdentities(ctx) {
		if id.Err == "" {
			t.Errorf("identity asked with a cancelled context: %+v", id)
		}
	}
}
