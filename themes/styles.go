package themes

import (
	"image/color"

	"charm.land/lipgloss/v2"
)

// Styles is everything the TUI draws with, built from one palette. It holds
// no state besides the styles: build a new one to switch themes.
type Styles struct {
	Theme      Theme
	Background color.Color // nil: the terminal's own

	Text, Muted, Subtle lipgloss.Style

	// Panes.
	Border, BorderFocused lipgloss.Style // border characters
	Title, TitleFocused   lipgloss.Style // a pane's title in its top border
	PaneInfo              lipgloss.Style // the right-hand note in a top border
	TabBar                lipgloss.Style
	TabActive, Tab        lipgloss.Style
	Selected              lipgloss.Style // the selected row of a list
	Match                 lipgloss.Style // a search match

	// Status bar.
	StatusBar, StatusLabel, StatusValue, StatusSep lipgloss.Style
	ModeRunning, ModePaused, ModeStepping          lipgloss.Style
	ModeManual, ModeStopped                        lipgloss.Style

	// Transcript.
	Agent, Human  lipgloss.Style // actor labels
	Command       lipgloss.Style // the command itself
	TurnMeta      lipgloss.Style // score, moves and place after a turn
	Response      lipgloss.Style // the story's text
	EpisodeRule   lipgloss.Style // an episode's start or end
	SystemMessage lipgloss.Style // notes from Lantern in the transcript

	// Reasoning.
	Thinking, Reasoning lipgloss.Style
	Proposal            lipgloss.Style
	Accepted, Rejected  lipgloss.Style

	// Memories, by category and status.
	Success, Failure, Discovery, Danger, Note lipgloss.Style
	Tentative, Superseded                     lipgloss.Style
	MemoryText                                lipgloss.Style

	// Notices and messages.
	Notice, NoticeKey lipgloss.Style // a warning box (Ollama unreachable)
	Error, Info       lipgloss.Style
	Flash             lipgloss.Style // a short-lived message in the footer

	// Input and help.
	Prompt, InputText, Placeholder lipgloss.Style
	HelpKey, HelpDesc, HelpSep     lipgloss.Style
	Dialog                         lipgloss.Style // overlay border
	DialogTitle                    lipgloss.Style
	Field, FieldFocused            lipgloss.Style // form field labels
	ProgressFull, ProgressEmpty    color.Color
}

func col(s string) color.Color {
	if s == "" {
		return lipgloss.NoColor{}
	}
	return lipgloss.Color(s)
}

// Build makes the styles of a theme.
func Build(t Theme) *Styles {
	p := t.Palette
	fg := func(s string) lipgloss.Style { return lipgloss.NewStyle().Foreground(col(s)) }
	s := &Styles{Theme: t}
	if p.Background != "" {
		s.Background = col(p.Background)
	}
	s.Text = fg(p.Text)
	s.Muted = fg(p.Muted)
	s.Subtle = fg(p.Subtle)

	s.Border = fg(p.Border)
	s.BorderFocused = fg(p.Accent)
	s.Title = fg(p.Muted).Bold(true)
	s.TitleFocused = fg(p.Accent).Bold(true)
	s.PaneInfo = fg(p.Muted)
	s.TabBar = lipgloss.NewStyle().Background(col(p.Surface)).Foreground(col(p.SurfaceFg))
	s.Tab = s.TabBar.Padding(0, 1)
	s.TabActive = lipgloss.NewStyle().Background(col(p.Accent)).Foreground(col(p.MatchFg)).Bold(true).Padding(0, 1)
	s.Selected = lipgloss.NewStyle().Background(col(p.Selection)).Foreground(col(p.SelectedFg))
	s.Match = lipgloss.NewStyle().Background(col(p.Match)).Foreground(col(p.MatchFg))

	s.StatusBar = lipgloss.NewStyle().Background(col(p.Surface)).Foreground(col(p.SurfaceFg))
	s.StatusLabel = s.StatusBar.Foreground(col(p.Muted))
	s.StatusValue = s.StatusBar.Bold(true)
	s.StatusSep = s.StatusBar.Foreground(col(p.Subtle))
	mode := func(c string) lipgloss.Style {
		return lipgloss.NewStyle().Background(col(c)).Foreground(col(p.MatchFg)).Bold(true).Padding(0, 1)
	}
	s.ModeRunning = mode(p.Success)
	s.ModePaused = mode(p.Warning)
	s.ModeStepping = mode(p.Accent)
	s.ModeManual = mode(p.Info)
	s.ModeStopped = mode(p.Danger)

	s.Agent = fg(p.Agent).Bold(true)
	s.Human = fg(p.Human).Bold(true)
	s.Command = fg(p.Text).Bold(true)
	s.TurnMeta = fg(p.Muted)
	s.Response = fg(p.Text)
	s.EpisodeRule = fg(p.Accent)
	s.SystemMessage = fg(p.Info).Italic(true)

	s.Thinking = fg(p.Thinking).Italic(true)
	s.Reasoning = fg(p.Text)
	s.Proposal = fg(p.Agent)
	s.Accepted = fg(p.Success)
	s.Rejected = fg(p.Failure)

	s.Success = fg(p.Success).Bold(true)
	s.Failure = fg(p.Failure).Bold(true)
	s.Discovery = fg(p.Discovery).Bold(true)
	s.Danger = fg(p.Danger).Bold(true)
	s.Note = fg(p.Note).Bold(true)
	s.Tentative = fg(p.Warning).Italic(true)
	s.Superseded = fg(p.Subtle).Strikethrough(true)
	s.MemoryText = fg(p.Muted)

	s.Notice = fg(p.Warning).Bold(true)
	s.NoticeKey = lipgloss.NewStyle().Background(col(p.Warning)).Foreground(col(p.MatchFg)).Bold(true)
	s.Error = fg(p.Danger)
	s.Info = fg(p.Info)
	s.Flash = fg(p.Info)

	s.Prompt = fg(p.Human).Bold(true)
	s.InputText = fg(p.Text)
	s.Placeholder = fg(p.Subtle)
	s.HelpKey = fg(p.Accent)
	s.HelpDesc = fg(p.Muted)
	s.HelpSep = fg(p.Subtle)
	s.Dialog = fg(p.Accent)
	s.DialogTitle = fg(p.Accent).Bold(true)
	s.Field = fg(p.Muted)
	s.FieldFocused = fg(p.Accent).Bold(true)
	s.ProgressFull = col(p.Accent)
	s.ProgressEmpty = col(p.Subtle)
	return s
}
