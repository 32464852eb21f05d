package zmachine

// Screen receives the story's screen operations in the order the story makes
// them, for hosts that render a terminal: line mode's dumb-terminal renderer
// (which reproduces dfrotz's output) and the TUI. The machine keeps its own
// transcript and upper-window model either way; a Screen is optional.
type Screen interface {
	// Char is one character for a window; '\n' is a new line.
	Char(window int, r rune)
	// Split makes the upper window lines tall.
	Split(lines int)
	// SetWindow selects window 0 (lower) or 1 (upper).
	SetWindow(window int)
	// Erase clears a window; -1 clears the screen and unsplits, -2 clears it.
	Erase(window int)
	// EraseLine clears from the cursor to the end of the line.
	EraseLine()
	// SetCursor moves the upper window's cursor (1-based).
	SetCursor(row, col int)
	// SetBuffered turns word buffering of the lower window on or off.
	SetBuffered(on bool)
	// SetStyle applies set_text_style.
	SetStyle(style uint16)
	// Status draws the v3 status line.
	Status(st StatusLine)
	// ReadLine: the story waits for a line (char false) or a key (char true).
	ReadLine(char bool)
	// Input: the line typed (for a key, its text), after ReadLine.
	Input(text string, char bool)
	// Restart: the story restarted; the screen is reset.
	Restart()
	// Quit: the story ended.
	Quit()
	// Beep: sound effect 1 (high) or 2 (low), the only sounds played.
	Beep(pitch int)
	// Flush: an instruction that ends the word being printed without other
	// screen effect (get_cursor, set_colour, output_stream, print_table).
	Flush()
}

// flushScreen tells the screen that the word being printed ends here.
func (m *Machine) flushScreen() {
	if m.screen != nil {
		m.screen.Flush()
	}
}

// SetScreen attaches a screen device (nil detaches it).
func (m *Machine) SetScreen(s Screen) { m.screen = s }
