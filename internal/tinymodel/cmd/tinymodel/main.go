// Command tinymodel writes Lantern's tiny test model (see package tinymodel)
// as a GGUF file:
//
//	go run ./internal/tinymodel/cmd/tinymodel -o tiny.gguf [-seed N]
//
// scripts/ollama-test-server.sh uses it to make the models it registers.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lantern-if/lantern/internal/tinymodel"
)

func main() {
	out := flag.String("o", "", "output file (required)")
	seed := flag.Int64("seed", 0, "seed of the random weights")
	flag.Parse()
	if *out == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: tinymodel -o FILE [-seed N]")
		os.Exit(2)
	}
	if err := writeFile(*out, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "tinymodel:", err)
		os.Exit(1)
	}
}

// writeFile writes the model next to path and renames it into place, so a
// reader never sees half a model.
func writeFile(path string, seed int64) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tinymodel-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := tinymodel.Write(f, seed); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
