//go:build ignore

// Generate writes demo.z3 and ../bindings/demo.toml from the story's source
// (package gen). Run it with `go generate` in this directory.
package main

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"os"

	"github.com/lantern-if/lantern/game_files/demo/gen"
)

func main() {
	out, err := gen.Build()
	if err != nil {
		fmt.Fprintln(os.Stderr, "generate demo:", err)
		os.Exit(1)
	}
	sum := md5.Sum(out.Story)
	if err := os.WriteFile("demo.z3", out.Story, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "generate demo:", err)
		os.Exit(1)
	}
	if err := os.WriteFile("../bindings/demo.toml", []byte(out.Binding(hex.EncodeToString(sum[:]))), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "generate demo:", err)
		os.Exit(1)
	}
	fmt.Printf("demo.z3: %d bytes, md5 %x\n", len(out.Story), sum)
}
