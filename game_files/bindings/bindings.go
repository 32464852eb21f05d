// Package bindings embeds the story bindings: TOML files of facts about one
// story file each (selected by md5) that the engine's ground truth uses where
// the generic v3 conventions are not enough.
package bindings

import (
	"embed"
	"io/fs"
)

//go:embed *.toml
var files embed.FS

// FS returns the embedded binding files.
func FS() fs.FS { return files }
