package sharedtest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// GoldenFile compares got with the golden file at path, or, when update
// is set, writes got there (its folder made). It returns what the file
// holds and whether got is that; a missing file fails the test.
func GoldenFile(t testing.TB, path string, got []byte, update bool) (want []byte, same bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return got, true
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to write it)", err)
	}
	return want, bytes.Equal(got, want)
}

// Golden is GoldenFile, failing the test with both texts when they differ.
func Golden(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if want, same := GoldenFile(t, path, got, update); !same {
		t.Errorf("%s differs from the golden file (-update rewrites it):\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}
