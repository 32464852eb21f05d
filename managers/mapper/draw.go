package mapper

import (
	"fmt"
	"sort"
	"strings"
)

// A drawing is a layout on a character canvas: each room a box with its
// name and its ID (with labels for the exits the grid cannot draw),
// compass links as lines between the boxes. Each character carries a kind
// so a client can colour it; the characters themselves come from Glyphs.

// Box sizes on the canvas: a room's box, and the gaps the links run in.
const (
	BoxWidth  = 20
	BoxHeight = 4
	GapX      = 4
	GapY      = 1
)

// Kind says what a character of a drawing belongs to.
type Kind uint8

// The kinds of a drawing's characters.
const (
	KindBlank Kind = iota
	KindBorder
	KindCurrentBorder
	KindName
	KindCurrentName
	KindLabel
	KindLink
)

// BoxRunes are the characters of a box's border.
type BoxRunes struct {
	Top, Bottom, Left, Right                   string
	TopLeft, TopRight, BottomLeft, BottomRight string
}

// Glyphs are the characters a drawing uses.
type Glyphs struct {
	Room, Current BoxRunes
}

// DefaultGlyphs: rounded boxes, a double box for the current room.
func DefaultGlyphs() Glyphs {
	return Glyphs{
		Room:    BoxRunes{"─", "─", "│", "│", "╭", "╮", "╰", "╯"},
		Current: BoxRunes{"═", "═", "║", "║", "╔", "╗", "╚", "╝"},
	}
}

// Glyph is one character of a drawing.
type Glyph struct {
	R    rune
	Kind Kind
}

// Rect is a room's box on the canvas.
type Rect struct{ X, Y, W, H int }

// Drawing is a layout drawn on a canvas.
type Drawing struct {
	Cells [][]Glyph
	Boxes map[int]Rect // by room ID
}

// Width and Height of the canvas in characters.
func (d Drawing) Width() int {
	if len(d.Cells) == 0 {
		return 0
	}
	return len(d.Cells[0])
}

// Height of the canvas in lines.
func (d Drawing) Height() int { return len(d.Cells) }

// Lines is the drawing as plain text, trailing spaces trimmed.
func (d Drawing) Lines() []string {
	out := make([]string, len(d.Cells))
	for y, row := range d.Cells {
		var b strings.Builder
		for _, g := range row {
			b.WriteRune(g.R)
		}
		out[y] = strings.TrimRight(b.String(), " ")
	}
	return out
}

// Draw draws a layout with the given characters.
func (l Layout) Draw(g Glyphs) Drawing {
	w, h := l.Width*(BoxWidth+GapX)-GapX, l.Height*(BoxHeight+GapY)-GapY
	d := Drawing{Boxes: map[int]Rect{}}
	if l.Width == 0 {
		return d
	}
	d.Cells = make([][]Glyph, h)
	for y := range d.Cells {
		d.Cells[y] = make([]Glyph, w)
		for x := range d.Cells[y] {
			d.Cells[y][x] = Glyph{' ', KindBlank}
		}
	}
	put := func(x, y int, s string, k Kind) {
		for _, r := range s {
			if y >= 0 && y < h && x >= 0 && x < w {
				d.Cells[y][x] = Glyph{r, k}
			}
			x++
		}
	}
	at := func(x, y int) rune {
		if y >= 0 && y < h && x >= 0 && x < w {
			return d.Cells[y][x].R
		}
		return ' '
	}
	for _, r := range l.Rooms {
		x, y := r.At.X*(BoxWidth+GapX), r.At.Y*(BoxHeight+GapY)
		d.Boxes[r.ID] = Rect{x, y, BoxWidth, BoxHeight}
		br, border, text := g.Room, KindBorder, KindName
		if r.Current {
			br, border, text = g.Current, KindCurrentBorder, KindCurrentName
		}
		inner := BoxWidth - 2
		put(x, y, br.TopLeft+strings.Repeat(br.Top, inner)+br.TopRight, border)
		for i := 1; i < BoxHeight-1; i++ {
			put(x, y+i, br.Left, border)
			put(x+BoxWidth-1, y+i, br.Right, border)
		}
		put(x, y+BoxHeight-1, br.BottomLeft+strings.Repeat(br.Bottom, inner)+br.BottomRight, border)
		put(x+1, y+1, fit(r.Name, inner), text)
		put(x+1, y+2, fit(RoomLabel(r), inner), KindLabel)
	}
	for _, k := range l.Links {
		a, _ := l.Room(k.From)
		b, _ := l.Room(k.To)
		drawLink(put, at, a.At, b.At, k.Both)
	}
	return d
}

// RoomLabel is a box's second line: the room's ID, then the exits the grid
// does not draw as a line, each as a short action and the room it leads to
// ("up:L5", "dn:L11", "w:L8", "enter:L7"); up, down, in and out first. What
// does not fit is counted ("+2"). Arrows are only ever on lines and mean
// compass directions; up and down are words.
func RoomLabel(r PlacedRoom) string {
	s := fmt.Sprintf("L%d", r.ID)
	others := append([]Exit(nil), r.Others...)
	sort.SliceStable(others, func(i, j int) bool { return exitRank(others[i].Action) < exitRank(others[j].Action) })
	inner := BoxWidth - 2
	for i, e := range others {
		next := s + " " + ShortAction(e.Action) + fmt.Sprintf(":L%d", e.To)
		rest := ""
		if left := len(others) - i - 1; left > 0 {
			rest = fmt.Sprintf(" +%d", left)
		}
		if len([]rune(next+rest)) > inner {
			return s + fmt.Sprintf(" +%d", len(others)-i)
		}
		s = next
	}
	return s
}

// exitRank orders a box's exit labels: up, down, in, out, then the rest.
func exitRank(action string) int {
	switch action {
	case "up":
		return 0
	case "down":
		return 1
	case "in":
		return 2
	case "out":
		return 3
	}
	return 4
}

// ShortAction is an exit's action as a box label writes it: compass
// directions as n, ne, e…, down as dn, other actions by their first word
// cut to five letters.
func ShortAction(action string) string {
	switch action {
	case "north", "south", "east", "west":
		return action[:1]
	case "northeast", "northwest", "southeast", "southwest":
		return action[:1] + action[5:6]
	case "down":
		return "dn"
	}
	f := strings.Fields(action)
	if len(f) == 0 {
		return "?"
	}
	w := []rune(f[0])
	return string(w[:min(len(w), 5)])
}

// drawLink draws the line between two neighbouring cells; a one-way link
// ends in an arrow pointing where it leads.
func drawLink(put func(x, y int, s string, k Kind), at func(x, y int) rune, from, to Cell, both bool) {
	dx, dy := to.X-from.X, to.Y-from.Y
	left, top := min(from.X, to.X), min(from.Y, to.Y)
	px, py := BoxWidth+GapX, BoxHeight+GapY
	switch {
	case dy == 0: // east-west: along the name line
		line := strings.Repeat("─", GapX)
		if !both && dx > 0 {
			line = strings.Repeat("─", GapX-1) + "→"
		} else if !both {
			line = "←" + strings.Repeat("─", GapX-1)
		}
		put(left*px+BoxWidth, from.Y*py+1, line, KindLink)
	case dx == 0: // north-south: under the middle of the box
		s := "│"
		if !both && dy > 0 {
			s = "↓"
		} else if !both {
			s = "↑"
		}
		put(from.X*px+BoxWidth/2, top*py+BoxHeight, s, KindLink)
	default: // the diagonals cross the corner between four cells
		s := "╲╲"
		if dx*dy < 0 {
			s = "╱╱"
		}
		x, y := left*px+BoxWidth+1, top*py+BoxHeight
		if r := at(x, y); r != ' ' && string(r)+string(r) != s {
			s = "╳╳" // both diagonals cross this corner
		}
		put(x, y, s, KindLink)
	}
}

// fit pads or cuts a text to n characters (a cut ends in "…").
func fit(s string, n int) string {
	r := []rune(strings.Join(strings.Fields(s), " "))
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return string(r) + strings.Repeat(" ", n-len(r))
}
