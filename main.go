// Command lantern is a terminal co-pilot for LLM agents that play Z-machine
// interactive fiction. The command line lives in internal/cli.
package main

import (
	_ "embed"

	"github.com/lantern-if/lantern/internal/cli"
)

//go:embed lantern.sample.toml
var sampleConfig string

func main() { cli.Main(sampleConfig) }
