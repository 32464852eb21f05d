package tui

import (
	"fmt"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/managers/mapper"
)

// mapPane draws the map: the rooms on a compass grid (mapper's layout),
// boxes and links in the theme's colours, the current room in a double
// box and kept in view; or the whole map as Mermaid on demand. It draws
// the engine's own map, a copy sent with each MapChanged event; only a
// replay, which has no engine, builds one from the recorded turns.
type mapPane struct {
	c       *common
	snap    mapper.Snapshot
	here    env.Location
	mermaid bool
	offset  int // Mermaid: lines scrolled; grid: lines off the centred view
	pan     int // grid: columns off the centred view
	w, h    int
	ver     int // bumped by every change
	cacheAt [6]int
	cache   []line
	replay  *mapper.Map // a replay's map, built from its turns
}

func newMapPane(c *common) *mapPane { return &mapPane{c: c} }

func (p *mapPane) setSize(w, h int) { p.w, p.h = w, h }

// setMap takes the engine's map (a MapChanged event's copy).
func (p *mapPane) setMap(s mapper.Snapshot) {
	p.snap = s
	p.ver++
}

// moved follows the player: the current room.
func (p *mapPane) moved(loc env.Location) {
	if loc.ID != p.here.ID {
		p.offset, p.pan = 0, 0 // centre on the new room
	}
	p.here = loc
	p.ver++
}

// replayTurn builds a replay's map from a recorded turn as the engine
// built it (turn 0 or the first turn shown: where the episode stands).
func (p *mapPane) replayTurn(t shownTurn, first bool) {
	if p.replay == nil {
		p.replay = mapper.New()
	}
	if first {
		p.replay.Visit(t.loc.ID, t.loc.Name)
	} else {
		p.replay.ProcessTurn(p.here.ID, t.action, t.loc.ID, t.loc.Name)
	}
	p.setMap(p.replay.Snapshot())
	p.moved(t.loc)
}

func (p *mapPane) toggleMermaid() {
	p.mermaid = !p.mermaid
	p.offset = 0
}

// mermaidText is the map as Mermaid source (copied by y).
func (p *mapPane) mermaidText() string {
	var b strings.Builder
	_ = p.snap.Render(&b, "mermaid") // a strings.Builder does not fail
	return b.String()
}

func (p *mapPane) info() string {
	rooms, links := len(p.snap.Names), 0
	for _, c := range p.snap.Conns {
		links += len(c)
	}
	s := plural(rooms, "room", "rooms") + " · " + plural(links, "link", "links")
	if p.mermaid {
		s = "Mermaid · " + s
	}
	return s
}

// panBy moves the grid's view n room columns to the east (negative: west),
// for the rooms a narrow pane leaves out at the sides.
func (p *mapPane) panBy(n int) {
	if !p.mermaid {
		p.pan += n * (mapper.BoxWidth + mapper.GapX)
	}
}

func (p *mapPane) scroll(n int) {
	if p.mermaid {
		p.offset = max(p.offset-n, 0)
		return
	}
	p.offset -= n
}

func (p *mapPane) lines() []line {
	key := [6]int{p.w, p.h, p.ver, p.offset, 0, p.pan}
	if p.mermaid {
		key[4] = 1
	}
	if p.cache != nil && key == p.cacheAt {
		return p.cache
	}
	var out []line
	if p.mermaid {
		for _, l := range strings.Split(strings.TrimRight(p.mermaidText(), "\n"), "\n") {
			out = append(out, wrap(l, p.w, stText, "    ")...)
		}
	} else {
		out = p.grid()
	}
	p.cache, p.cacheAt = out, key
	return out
}

// glyphs are lipgloss's rounded border for a room, its double border for
// the current one.
func glyphs() mapper.Glyphs {
	conv := func(b lipgloss.Border) mapper.BoxRunes {
		return mapper.BoxRunes{Top: b.Top, Bottom: b.Bottom, Left: b.Left, Right: b.Right,
			TopLeft: b.TopLeft, TopRight: b.TopRight, BottomLeft: b.BottomLeft, BottomRight: b.BottomRight}
	}
	return mapper.Glyphs{Room: conv(lipgloss.RoundedBorder()), Current: conv(lipgloss.DoubleBorder())}
}

// kindStyle colours a drawing's characters.
func kindStyle(k mapper.Kind) styleID {
	switch k {
	case mapper.KindBorder:
		return stMuted
	case mapper.KindCurrentBorder:
		return stTitle
	case mapper.KindName:
		return stText
	case mapper.KindCurrentName:
		return stEpisode
	case mapper.KindLabel:
		return stSubtle
	case mapper.KindLink:
		return stMeta
	}
	return stText
}

// grid: a heading with the current room, the drawing cut to the pane
// around the current room (moved by scrolling), then the current room's
// exits the grid does not draw.
func (p *mapPane) grid() []line {
	w, h := p.w, p.h
	cur := p.here.ID
	if cur == 0 {
		cur = p.snap.Current
	}
	if cur == 0 {
		return wrap("The map starts with the first room.", w, stMuted, "")
	}
	name := p.snap.Names[cur]
	if name == "" {
		name = p.here.Name
	}
	head := mkLine(seg{"▣ ", stTitle}, seg{fmt.Sprintf("L%d %s", cur, oneLine(name)), stEpisode})
	if len(p.snap.Names) == 0 {
		return append([]line{head}, wrap("The map is drawn as the engine learns it.", w, stMuted, "  ")...)
	}
	lay := p.snap.Layout(cur)
	d := lay.Draw(glyphs())
	var foot []line
	if r, ok := lay.Room(cur); ok && len(r.Others) > 0 {
		parts := make([]string, len(r.Others))
		for i, e := range r.Others {
			parts[i] = fmt.Sprintf("%s → L%d %s", e.Action, e.To, oneLine(p.snap.Names[e.To]))
		}
		foot = wrap("also: "+strings.Join(parts, " · "), w, stMuted, "  ")
		foot = foot[:min(len(foot), 2)]
	}
	if failed := p.snap.Failed[cur]; len(failed) > 0 && h > 8 {
		foot = append(foot, wrap("failed here: "+strings.Join(sortedKeys(failed), ", "), w, stFailure, "  ")[0])
	}
	viewH := max(h-1-len(foot), 1)
	// The view: the current room's box in the middle, then scrolled.
	// The offset is kept as what it moved the view from the centred one
	// (unclamped), so each key moves the view by a line at once.
	// A turn can reach the pane before the map that holds its room: the
	// view then stays put, and is not kept, so the map's arrival centres it.
	box, drawn := d.Boxes[cur]
	centreX := box.X + box.W/2 - w/2
	x0 := clampView(centreX+p.pan, d.Width(), w)
	centre := box.Y + box.H/2 - viewH/2
	y0 := clampView(centre+p.offset, d.Height(), viewH)
	if drawn {
		p.pan, p.offset = x0-centreX, y0-centre
	}
	if n := hiddenRooms(d, x0, y0, w, viewH); n > 0 {
		head = mkLine(append(head.segs, seg{"  · " + plural(n, "room", "rooms") + " not shown", stMuted})...)
	}
	out := []line{head}
	for y := y0; y < min(y0+viewH, d.Height()); y++ {
		out = append(out, cellsLine(d.Cells[y], x0, w))
	}
	for len(out) < 1+viewH && len(foot) > 0 {
		out = append(out, line{})
	}
	return append(out, foot...)
}

// hiddenRooms counts the rooms whose name a view of w×h cells from
// (x0, y0) does not show whole (the box's name row, border to border).
func hiddenRooms(d mapper.Drawing, x0, y0, w, h int) int {
	n := 0
	for _, b := range d.Boxes {
		if b.X < x0 || b.X+b.W > x0+w || b.Y+1 < y0 || b.Y+1 >= y0+h {
			n++
		}
	}
	return n
}

// clampView keeps a view of n cells starting at at inside 0..size.
func clampView(at, size, n int) int {
	return max(min(at, size-n), 0)
}

// cellsLine turns a drawing's row, from x0 for w cells, into styled runs.
func cellsLine(row []mapper.Glyph, x0, w int) line {
	var segs []seg
	var b strings.Builder
	kind := mapper.KindBlank
	flush := func() {
		if b.Len() > 0 {
			segs = append(segs, seg{b.String(), kindStyle(kind)})
			b.Reset()
		}
	}
	for x := x0; x < min(x0+w, len(row)); x++ {
		g := row[x]
		if g.Kind != kind && g.R != ' ' {
			flush()
			kind = g.Kind
		}
		b.WriteRune(g.R)
	}
	flush()
	return mkLine(segs...)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (p *mapPane) view() []string {
	if p.w <= 0 || p.h <= 0 {
		return nil
	}
	ls := p.lines()
	start := 0
	if p.mermaid {
		p.offset = min(p.offset, max(len(ls)-p.h, 0))
		start = p.offset
	}
	out := make([]string, 0, p.h)
	for i := start; i < len(ls) && len(out) < p.h; i++ {
		out = append(out, p.c.render(ls[i], p.w, "", false))
	}
	for len(out) < p.h {
		out = append(out, strings.Repeat(" ", p.w))
	}
	return out
}

// bindings are the Map pane's keys (f, the zoom, is the root's: it works
// from any pane).
func (p *mapPane) bindings() []binding {
	k := p.c.keys
	return []binding{
		bind(described(k.View, "show the map as Mermaid source (again: the drawing)"), "Mermaid", do(p.toggleMermaid)),
		bind(keyOf("←/→", "pan the map sideways", "left", "right"), "", func(k tea.KeyPressMsg) tea.Cmd {
			// Rooms beyond a narrow pane's edge.
			if k.String() == "left" {
				p.panBy(-1)
			} else {
				p.panBy(1)
			}
			return nil
		}),
	}
}

// hints are the Map pane's footer: its keys and the zoom's, then the
// game's; the zoomed map takes the whole area, so no pane key.
func (p *mapPane) hints(g gameKeys) []binding {
	own := p.bindings()[0]
	if g.zoomed {
		return append([]binding{g.zoom, own, g.arrows}, g.game...)
	}
	return append(append([]binding{own, g.zoom, g.arrows}, g.game...), g.next)
}
