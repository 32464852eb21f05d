// Package tui is Lantern's terminal interface, a Bubble Tea v2 program and
// one client of the engine among others: it reads the engine's events and
// sends it commands, nothing more.
//
// One small root model (Model) owns the layout, the focus and the
// engine's event stream, routes the keys and composes the views of its
// components: the panes (transcript, reasoning, memory, objectives, map:
// the pane interface, panes.go), the game and its status bar (status.go),
// the footer (footer.go), the command line, review mode and the model
// server's notice. Each component owns its size, its view and its keys as
// data (binding.go: keys, handler, help text, footer word, when it is
// disabled); the help screen and the footers are generated from those
// bindings, so a key remapped in lantern.toml is remapped everywhere. What
// takes the keyboard from the panes (the help, the memory form, the model
// picker, a viewer, the episodes, the notes, the timeline, and the lines
// typed in the footer) is a dialog on one stack (dialog.go). Update never does I/O:
// reading events, sending commands, checking the model server, reading
// the memory store and rendering Markdown all happen in tea.Cmds; the
// person's edits of memories and objectives go to the session as engine
// commands, and the session keeps them.
package tui

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"time"

	tea "charm.land/bubbletea/v2"
)

// Options configure the TUI.
type Options struct {
	// Engine is required; the TUI reads its events and sends it commands.
	Engine Engine
	// Models is the model server (the Ollama notice, the model picker,
	// pulls); nil leaves those out.
	Models Models
	// Memories is the memory store's read side; nil: no Memory pane data.
	Memories MemorySource
	// Objectives is the objectives manager's read side; may be nil.
	Objectives ObjectiveSource
	// Episodes is the run database (past episodes, replayed read-only);
	// may be nil.
	Episodes EpisodeSource
	// Branches is the run database's branches (the timeline's branch list,
	// a branched episode's transcript); nil: one line of play per episode.
	Branches BranchSource
	// Notes is the agent's flagged notes for the Notes view (N); may be
	// nil.
	Notes NoteSource
	// Story is the story's name for the status bar; MaxScore its maximum
	// score (0: unknown).
	Story    string
	MaxScore int
	// Theme names a built-in theme; "" follows the terminal's background.
	Theme string
	// Review starts in review mode (the engine was sent SetReview already);
	// AutoAccept is the auto-accept the v key asks for (0: wait).
	Review     bool
	AutoAccept time.Duration
	// Keys remaps keys by action (lantern.toml's [keys], validated there).
	Keys map[string]string
	// KnowledgePath is knowledgebase.md, for the K viewer ("" hides it).
	KnowledgePath string
	// Logger receives the TUI's log; nil discards it. It must not write to
	// the terminal.
	Logger *slog.Logger
	// RefreshEvery is how often Memories.md is checked for edits made by
	// hand (default 2 s; negative: never).
	RefreshEvery time.Duration
	// SavePrefs keeps the person's choices in the user's configuration: a
	// theme ("" when unchanged) and the models chosen per role. It runs in
	// a command; nil keeps them for this session only.
	SavePrefs func(theme string, models map[string]string) error
}

// Run shows the TUI on the terminal until the person quits (the engine is
// sent Quit and the TUI waits for it to stop) or ctx ends.
func Run(ctx context.Context, opts Options, in io.Reader, out io.Writer) error {
	m := New(ctx, opts)
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(out))
	_, err := p.Run()
	if err != nil && ctx.Err() != nil && errors.Is(err, tea.ErrProgramKilled) {
		return nil // ended from outside (a signal): a normal exit
	}
	return err
}
