// Package layers holds the test that keeps the import layering written in
// ARCHITECTURE.md: each layer imports only the ones below it, and nothing
// below the TUI imports a terminal UI library. It has no code of its own.
package layers
