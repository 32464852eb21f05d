package config

import (
	"errors"
	"testing"
)

func TestOllamaURLReadsHostsAsOllamaDoes(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		bad      bool
	}{
		{"", "http://127.0.0.1:11434", false},
		{"gpu-box", "http://gpu-box:11434", false},
		{"gpu-box:8080", "http://gpu-box:8080", false},
		{":11434", "http://127.0.0.1:11434", false},
		{"http://h", "http://h:80", false},
		{"https://h", "https://h:443", false},
		{"http://h:11434", "http://h:11434", false},
		{"https://h:8443/ollama", "https://h:8443/ollama", false},
		{"ollama.com", "https://ollama.com:443", false},
		{"[::1]", "http://[::1]:11434", false},
		{"[::1]:9000", "http://[::1]:9000", false},
		{"  10.0.0.1  ", "http://10.0.0.1:11434", false},
		{"ftp://h", "", true},
		{"h:99999", "", true},
		{"h:port", "", true},
		{"a b", "", true},
	} {
		u, err := OllamaURL(tc.in)
		if tc.bad {
			if err == nil {
				t.Errorf("OllamaURL(%q) = %v, want an error", tc.in, u)
			}
			continue
		}
		if err != nil || u.String() != tc.want {
			t.Errorf("OllamaURL(%q) = %v, %v; want %s", tc.in, u, err, tc.want)
		}
	}
	if _, err := OllamaURL("gopher://h"); !errors.Is(err, ErrBadHost) {
		t.Errorf("gopher scheme: %v, want ErrBadHost", err)
	}
}
