package tui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/managers/mapper"
)

// mapPane draws the neighbourhood of the current room, or the whole map as
// Mermaid on demand. It keeps its own map, fed from TurnResult events the
// way the engine feeds its own (the engine's map is not safe to read from
// another goroutine), so both always agree.
type mapPane struct {
	c       *common
	m       *mapper.Map
	here    env.Location
	mermaid bool
	offset  int
	w, h    int
	ver     int // bumped by every change
	cacheAt [3]int
	cache   []line
}

// maxMapExits bounds the exits and rooms listed around the current room.
const maxMapExits = 12

func newMapPane(c *common) *mapPane { return &mapPane{c: c, m: mapper.New()} }

func (p *mapPane) setSize(w, h int) { p.w, p.h = w, h }

// turn records a played turn (turn 0: a new episode starts) as the engine's
// map does.
func (p *mapPane) turn(ev engine.TurnResult) {
	loc := ev.Observation.Location
	if ev.Turn == 0 {
		p.m.Reset()
		p.m.Visit(loc.ID, loc.Name)
	} else {
		p.m.ProcessTurn(p.here.ID, ev.Action, loc.ID, loc.Name)
	}
	p.here = loc
	p.ver++
}

func (p *mapPane) toggleMermaid() {
	p.mermaid = !p.mermaid
	p.offset = 0
}

func (p *mapPane) info() string {
	st := p.m.Status()
	s := plural(st.Rooms, "room", "rooms") + " · " + plural(st.Connections, "link", "links")
	if p.mermaid {
		s = "Mermaid · " + s
	}
	return s
}

func (p *mapPane) scroll(n int) { p.offset = max(p.offset-n, 0) }

func (p *mapPane) lines() []line {
	key := [3]int{p.w, p.ver, 0}
	if p.mermaid {
		key[2] = 1
	}
	if p.cache != nil && key == p.cacheAt {
		return p.cache
	}
	var out []line
	if p.mermaid {
		for _, l := range strings.Split(strings.TrimRight(p.m.Mermaid(), "\n"), "\n") {
			out = append(out, wrap(l, p.w, stText, "    ")...)
		}
	} else {
		out = p.neighbourhood()
	}
	p.cache, p.cacheAt = out, key
	return out
}

// neighbourhood: the room, its exits (marking the ones that lead back), the
// directions that failed, then the rooms next door with their own exits.
func (p *mapPane) neighbourhood() []line {
	w := p.w
	id := p.here.ID
	if id == 0 {
		return wrap("The map starts with the first room.", w, stMuted, "")
	}
	out := []line{mkLine(seg{"▣ ", stTitle}, seg{fmt.Sprintf("L%d %s", id, oneLine(p.m.Name(id))), stEpisode})}
	exits := p.m.Exits(id)
	acts := sortedKeys(exits)
	if len(acts) == 0 {
		msg := "  no exit tried from here yet"
		if len(p.m.Adjacent(id)) > 0 {
			msg += " · the way in is under Next door"
		}
		out = append(out, mkLine(seg{msg, stMuted}))
	}
	width := 0
	for _, a := range acts {
		width = min(max(width, len(a)), 16)
	}
	backs := map[int]bool{} // rooms with a known way back here
	for i, a := range acts {
		if i == maxMapExits {
			out = append(out, mkLine(seg{fmt.Sprintf("  … %d more", len(acts)-i), stMuted}))
			break
		}
		to := exits[a]
		back, seen := backs[to]
		if !seen {
			for _, b := range p.m.Exits(to) {
				if b == id {
					back = true
					break
				}
			}
			backs[to] = back
		}
		mark := ""
		if back {
			mark = " ↔"
		}
		out = append(out, mkLine(seg{fmt.Sprintf("  %-*s → ", width, a), stMeta}, seg{fmt.Sprintf("L%d %s", to, oneLine(p.m.Name(to))), stText}, seg{mark, stMuted}))
	}
	if f := p.m.FailedExits(id); len(f) > 0 {
		out = append(out, wrap("failed here: "+strings.Join(sortedKeys(f), ", "), w, stFailure, "  ")...)
	}
	adj := p.m.Adjacent(id)
	if len(adj) > 0 {
		out = append(out, line{}, mkLine(seg{"Next door", stEpisode}))
	}
	for i, n := range adj {
		if i == maxMapExits {
			out = append(out, mkLine(seg{fmt.Sprintf("  … %d more rooms", len(adj)-i), stMuted}))
			break
		}
		ex := p.m.Exits(n)
		var parts []string
		for j, a := range sortedKeys(ex) {
			if j == maxMapExits {
				parts = append(parts, "…")
				break
			}
			parts = append(parts, fmt.Sprintf("%s→L%d", a, ex[a]))
		}
		text := fmt.Sprintf("L%d %s", n, oneLine(p.m.Name(n)))
		if len(parts) > 0 {
			text += ": " + strings.Join(parts, ", ")
		}
		out = append(out, wrap(text, w, stMuted, "  ")...)
	}
	out = append(out, line{}, mkLine(seg{"M shows the whole map as Mermaid", stSubtle}))
	return out
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
	p.offset = min(p.offset, max(len(ls)-p.h, 0))
	out := make([]string, 0, p.h)
	for i := p.offset; i < len(ls) && len(out) < p.h; i++ {
		out = append(out, p.c.render(ls[i], p.w, "", false))
	}
	for len(out) < p.h {
		out = append(out, strings.Repeat(" ", p.w))
	}
	return out
}

// restore takes the engine's map (a resumed checkpoint's), standing in loc.
func (p *mapPane) restore(s mapper.Snapshot, loc env.Location) {
	p.m.Restore(s)
	p.here = loc
	p.ver++
}
