package sharedtest

import (
	"os/exec"
	"testing"
)

// Chromium returns the path of a headless-capable Chromium, skipping or
// failing t when none is installed (scripts/test-deps.sh installs Debian's).
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	missing(t, "chromium not installed (run scripts/test-deps.sh)")
	return ""
}
