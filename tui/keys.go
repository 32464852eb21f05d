package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
)

// keyMap is every key of the TUI (the engine's commands, scrolling, search
// and the pane jumps). Keys that only mean something in one pane are listed
// under that pane in the full help.
type keyMap struct {
	Pause, Step, Input, Cancel, Quit key.Binding
	NextPane, PrevPane, Jump         key.Binding
	Memory, Objectives, MapPane      key.Binding
	Up, Down, PageUp, PageDown       key.Binding
	Top, Bottom, Search              key.Binding
	Edit, Supersede, Add, Delete     key.Binding
	Undo, View, Browse, Back         key.Binding
	Complete, Drop, Mermaid          key.Binding
	Models, Theme, Help, Retry, Pull key.Binding
	Knowledge, Episodes, Notes       key.Binding
	EndEpisode, Timeline             key.Binding
	Copy, Mouse                      key.Binding
	Review, Zoom, Accept             key.Binding
}

func defaultKeys() keyMap {
	b := func(keys []string, k, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(k, desc))
	}
	return keyMap{
		Pause:      b([]string{"space"}, "space", "pause/resume"),
		Step:       b([]string{"n"}, "n", "step one turn"),
		Input:      b([]string{"i"}, "i", "type a command"),
		Cancel:     b([]string{"esc"}, "esc esc", "cancel the model call"),
		Quit:       b([]string{"q", "ctrl+c"}, "q", "quit"),
		NextPane:   b([]string{"tab"}, "tab", "next pane"),
		PrevPane:   b([]string{"shift+tab"}, "shift+tab", "previous pane"),
		Jump:       b([]string{"1", "2", "3", "4", "5"}, "1-5", "go to pane"),
		Memory:     b([]string{"m"}, "m", "memory pane"),
		Objectives: b([]string{"o"}, "o", "objectives pane"),
		MapPane:    b([]string{"M"}, "M", "map · Mermaid"),
		Up:         b([]string{"up", "k"}, "↑/k", "up"),
		Down:       b([]string{"down", "j"}, "↓/j", "down"),
		PageUp:     b([]string{"pgup", "ctrl+u"}, "pgup", "page up"),
		PageDown:   b([]string{"pgdown", "ctrl+d"}, "pgdn", "page down"),
		Top:        b([]string{"home", "g"}, "g/home", "oldest"),
		Bottom:     b([]string{"end", "G"}, "G/end", "newest (follow)"),
		Search:     b([]string{"/"}, "/", "search the transcript"),
		Edit:       b([]string{"e"}, "e", "edit memory"),
		Supersede:  b([]string{"s"}, "s", "supersede memory"),
		Add:        b([]string{"a"}, "a", "add memory/objective"),
		Delete:     b([]string{"d"}, "d", "delete memory/drop objective"),
		Undo:       b([]string{"u"}, "u", "undo delete (also by hand)"),
		View:       b([]string{"enter"}, "enter", "read memory"),
		Browse:     b([]string{"b"}, "b", "browse all locations"),
		Back:       b([]string{"esc"}, "esc", "back"),
		Accept:     b([]string{"enter"}, "enter", "accept"),
		Complete:   b([]string{"c"}, "c", "complete objective"),
		Drop:       b([]string{"d"}, "d", "drop objective"),
		Mermaid:    b([]string{"M"}, "M", "Mermaid map"),
		Zoom:       b([]string{"f"}, "f", "map full screen (again: back)"),
		Models:     b([]string{"ctrl+l"}, "ctrl+l", "model per role"),
		Theme:      b([]string{"t"}, "t", "next theme"),
		Help:       b([]string{"?"}, "?", "help"),
		Retry:      b([]string{"r"}, "r", "retry Ollama"),
		Pull:       b([]string{"P"}, "P", "pull the model"),
		Knowledge:  b([]string{"K"}, "K", "knowledge base"),
		Episodes:   b([]string{"E"}, "E", "replay an episode"),
		Timeline:   b([]string{"T"}, "T", "timeline: rewind to a turn, switch branch"),
		Notes:      b([]string{"N"}, "N", "the agent's notes: read, edit, delete"),
		EndEpisode: b([]string{"X"}, "X X", "end the episode"),
		Copy:       b([]string{"y"}, "y", "copy: memory, map or the transcript shown"),
		Mouse:      b([]string{"ctrl+o"}, "ctrl+o", "mouse on/off (off: select text)"),
		Review:     b([]string{"v"}, "v", "review mode: you accept, edit or reject each move"),
	}
}

// ShortHelp is the footer (help.KeyMap).
func (k keyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Pause, k.Step, k.Input, k.NextPane, k.Memory, k.Search, k.Help, k.Quit}
}

// FullHelp is the help screen (help.KeyMap), by column.
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Pause, k.Step, k.Input, k.Review, k.Cancel, k.EndEpisode, k.Retry, k.Pull, k.Models, k.Quit},
		{k.NextPane, k.PrevPane, k.Jump, k.Memory, k.Objectives, k.MapPane, k.Search, k.Episodes, k.Timeline, k.Notes},
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Theme, k.Knowledge},
		{k.View, k.Edit, k.Supersede, k.Add, k.Delete, k.Undo, k.Browse, k.Complete},
	}
}

// remap applies [keys] from lantern.toml: action → key, as the
// configuration validated them. The cancel key is pressed twice whatever it
// is ("esc esc" names esc); ctrl+c always quits as well, and the arrows,
// home and end always move as well.
func (km *keyMap) remap(keys map[string]string) {
	byAction := map[string]*key.Binding{
		"pause": &km.Pause, "step": &km.Step, "input": &km.Input, "next_pane": &km.NextPane,
		"memory": &km.Memory, "edit": &km.Edit, "supersede": &km.Supersede, "add": &km.Add,
		"delete": &km.Delete, "undo": &km.Undo, "objectives": &km.Objectives, "models": &km.Models,
		"theme": &km.Theme, "cancel": &km.Cancel, "help": &km.Help, "quit": &km.Quit,
		"review": &km.Review, "up": &km.Up, "down": &km.Down, "top": &km.Top, "bottom": &km.Bottom,
	}
	for action, k := range keys {
		b, ok := byAction[action]
		if !ok || strings.TrimSpace(k) == "" {
			continue
		}
		desc := b.Help().Desc
		switch action {
		case "cancel":
			first := strings.Fields(k)[0]
			b.SetKeys(first)
			b.SetHelp(first+" "+first, desc)
		case "quit":
			b.SetKeys(k, "ctrl+c")
			b.SetHelp(k, desc)
		case "up", "down", "top", "bottom":
			// The letter moves; the arrow (home, end) still does too.
			fixed := map[string]string{"up": "up", "down": "down", "top": "home", "bottom": "end"}[action]
			b.SetKeys(fixed, k)
			if arrow, _, _ := strings.Cut(b.Help().Key, "/"); action == "up" || action == "down" {
				b.SetHelp(arrow+"/"+k, desc) // ↓/j
			} else {
				b.SetHelp(k+"/"+fixed, desc) // g/home
			}
		default:
			b.SetKeys(k)
			b.SetHelp(k, desc)
		}
		if action == "delete" { // d also drops an objective in that pane
			km.Drop.SetKeys(k)
			km.Drop.SetHelp(k, km.Drop.Help().Desc)
		}
	}
}
