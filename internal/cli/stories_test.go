package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/sharedtest"
)

func TestCLIStories(t *testing.T) {
	zork := sharedtest.File(t, "stories/zork1.z3")
	data, err := os.ReadFile(zork)
	if err != nil {
		t.Fatal(err)
	}
	// The same story with one byte of its padding changed: another md5, so
	// no binding, and the generic path infers from the v3 header globals.
	data[len(data)-1] ^= 0xff
	unbound := filepath.Join(t.TempDir(), "unbound.z3")
	if err := os.WriteFile(unbound, data, 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "missing.z3")
	code, out, errs := runCLI(t, "", "stories", zork, unbound, missing)
	if code != exitError || !strings.Contains(errs, "missing.z3") {
		t.Errorf("exit %d stderr %q, want %d naming the missing file", code, errs, exitError)
	}
	parts := strings.SplitN(out, unbound, 2)
	if len(parts) != 2 {
		t.Fatalf("output does not describe %s:\n%s", unbound, out)
	}
	for _, want := range []string{"binding  zork1", "release 119", "1d4606016ea58ee038da53d994392323", "location bound, score bound, moves bound, player bound"} {
		if !strings.Contains(parts[0], want) {
			t.Errorf("bound story: output lacks %q:\n%s", want, parts[0])
		}
	}
	for _, want := range []string{"binding  none", "location inferred, score inferred, moves inferred"} {
		if !strings.Contains(parts[1], want) {
			t.Errorf("unbound story: output lacks %q:\n%s", want, parts[1])
		}
	}
	code, out, _ = runCLI(t, "", "stories", "--bindings")
	if code != exitOK || !strings.Contains(out, "b732a93a6244ddd92a9b9a3e3a46c687") || !strings.Contains(out, "bound stories") {
		t.Errorf("listing: exit %d, output lacks Zork I r88:\n%s", code, out)
	}
}
