package config

import (
	"strings"
	"testing"
)

// TestWorkDirNULAndLongValues: a NUL in work_dir is a problem, and a huge
// bad value comes back clipped in the error.
func TestWorkDirNULAndLongValues(t *testing.T) {
	_, err := Parse("lantern.toml", []byte("work_dir = \"/tmp/a\\u0000b\"\n"))
	if err == nil || !strings.Contains(err.Error(), "NUL") {
		t.Errorf("NUL in work_dir: %v", err)
	}
	huge := "Bad " + strings.Repeat("x", 10<<20)
	_, err = Parse("lantern.toml", []byte("theme = \""+huge+"\"\n"))
	if err == nil {
		t.Fatal("a 10 MB theme name passed")
	}
	if n := len(err.Error()); n > 4096 {
		t.Errorf("the error is %d bytes", n)
	}
}
