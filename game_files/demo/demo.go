// Package demo embeds Lantern's built-in story, "The Keeper's Lantern": a
// small Z-machine version 3 adventure that Lantern plays when no other story
// is given. Its source is the Go package gen (written with the zmachine/zasm
// assembler); `go generate` rebuilds demo.z3 from it, together with the
// story's binding in game_files/bindings/demo.toml. walkthrough.txt wins it
// with the maximum score.
package demo

import _ "embed"

//go:generate go run generate.go

//go:embed demo.z3
var story []byte

// FileName is the name the story goes by (for save files and the work dir).
const FileName = "demo.z3"

// Story returns a copy of the story file.
func Story() []byte { return append([]byte(nil), story...) }
