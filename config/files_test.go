package config

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestInitKeepsAnExistingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "lantern.toml")
	if err := Init(path, []byte("a = 1\n"), false); err != nil {
		t.Fatal(err)
	}
	err := Init(path, []byte("b = 2\n"), false)
	if !errors.Is(err, ErrExists) {
		t.Fatalf("second init: %v, want ErrExists", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "a = 1\n" {
		t.Fatalf("file overwritten: %q", b)
	}
	if err := Init(path, []byte("b = 2\n"), true); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "b = 2\n" {
		t.Fatalf("--force: %q", b)
	}
	if err := Init("", nil, false); err == nil {
		t.Fatal("init with no path succeeded")
	}
}

func TestEditor(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want []string
	}{
		{map[string]string{"VISUAL": "code --wait", "EDITOR": "nano"}, []string{"code", "--wait"}},
		{map[string]string{"EDITOR": "nano"}, []string{"nano"}},
		{map[string]string{"VISUAL": "  "}, nil},
	} {
		got := Editor(env(tc.env))
		if tc.want == nil {
			if len(got) != 1 {
				t.Errorf("%v: %v", tc.env, got)
			}
			continue
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%v: %v, want %v", tc.env, got, tc.want)
		}
	}
}
