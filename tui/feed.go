package tui

import "strings"

// item is one block of a feed (a turn of the transcript, a turn's reasoning):
// it lays itself out at a width and gives its plain text for search.
type item interface {
	layout(w int) []line
	plain() string
}

// feedEntry caches an item's layout for one width and style generation.
type feedEntry struct {
	it    item
	seq   int
	w     int
	dirty bool
	lines []line
}

// feed is a bottom-anchored, scrollable list of items: the view follows the
// newest item until the person scrolls up; the oldest items are dropped
// beyond the cap, so memory stays bounded however long a run lasts. Only
// the items on screen are laid out, and each layout is cached, so drawing
// costs the same with 50 items or 5,000.
type feed struct {
	entries []*feedEntry
	next    int // seq of the next item
	max     int
	offset  int // lines scrolled up from the bottom
	w, h    int
	dropped int // items dropped beyond the cap
}

func newFeed(maxItems int) *feed { return &feed{max: maxItems} }

func (f *feed) setSize(w, h int) {
	f.w, f.h = w, h
}

// add appends an item. When the view is scrolled up it stays where it is.
func (f *feed) add(it item) {
	e := &feedEntry{it: it, seq: f.next, dirty: true}
	f.next++
	if f.offset > 0 && f.w > 0 {
		f.offset += len(f.layout(e))
	}
	f.entries = append(f.entries, e)
	// Trim in batches so appending stays O(1) amortised.
	if f.max > 0 && len(f.entries) >= f.max+f.max/4+1 {
		n := len(f.entries) - f.max
		clear(f.entries[:n])
		f.entries = append(f.entries[:0], f.entries[n:]...)
		f.dropped += n
	}
}

// last is the newest item, or nil.
func (f *feed) last() item {
	if len(f.entries) == 0 {
		return nil
	}
	return f.entries[len(f.entries)-1].it
}

// touchLast marks the newest item changed (a streaming block grew).
func (f *feed) touchLast() {
	if n := len(f.entries); n > 0 {
		e := f.entries[n-1]
		if f.offset > 0 && f.w > 0 {
			before := len(f.layout(e))
			e.dirty = true
			f.offset += len(f.layout(e)) - before
			return
		}
		e.dirty = true
	}
}

// invalidate drops every cached layout (after a theme change).
func (f *feed) invalidate() {
	for _, e := range f.entries {
		e.dirty = true
	}
}

func (f *feed) layout(e *feedEntry) []line {
	if e.dirty || e.w != f.w {
		e.lines = e.it.layout(f.w)
		e.w, e.dirty = f.w, false
	}
	return e.lines
}

// len is the number of items held.
func (f *feed) len() int { return len(f.entries) }

// render draws the visible h lines at width w (bottom-anchored).
func (f *feed) render(c *common, match string) []string {
	if f.h <= 0 || f.w <= 0 {
		return nil
	}
	vis := make([]line, 0, f.h) // from the bottom up
	skip, total := f.offset, 0
	for i := len(f.entries) - 1; i >= 0 && len(vis) < f.h; i-- {
		ls := f.layout(f.entries[i])
		total += len(ls)
		if skip >= len(ls) {
			skip -= len(ls)
			continue
		}
		for j := len(ls) - 1 - skip; j >= 0 && len(vis) < f.h; j-- {
			vis = append(vis, ls[j])
		}
		skip = 0
	}
	if len(vis) < f.h && f.offset > 0 {
		// Scrolled past the top: show the first screen.
		f.offset = max(total-f.h, 0)
		return f.render(c, match)
	}
	out := make([]string, 0, f.h)
	for i := len(vis) - 1; i >= 0; i-- {
		out = append(out, c.render(vis[i], f.w, match, false))
	}
	// Less than a screen of text reads from the top: blank rows go below.
	empty := strings.Repeat(" ", f.w)
	for len(out) < f.h {
		out = append(out, empty)
	}
	return out
}

// scroll moves the view n lines up (n > 0) or down (n < 0).
func (f *feed) scroll(n int) {
	f.offset = max(f.offset+n, 0)
	if n > 0 {
		// Clamp at the top: count lines only as far as needed.
		total := 0
		for i := len(f.entries) - 1; i >= 0; i-- {
			total += len(f.layout(f.entries[i]))
			if total >= f.offset+f.h {
				return
			}
		}
		f.offset = max(total-f.h, 0)
	}
}

func (f *feed) toBottom() { f.offset = 0 }

// cutFrom drops the item with sequence seq and every later one, and
// follows the newest again.
func (f *feed) cutFrom(seq int) {
	i := len(f.entries)
	for i > 0 && f.entries[i-1].seq >= seq {
		i--
	}
	clear(f.entries[i:])
	f.entries = f.entries[:i]
	f.offset = 0
}

func (f *feed) toTop() { f.scroll(1 << 30) }

func (f *feed) atBottom() bool { return f.offset == 0 }

// find searches the items' text for q (case-insensitive) starting below the
// item with sequence from (or from the newest when from < 0), going back in
// time when older; it returns the sequence found, or -1.
func (f *feed) find(q string, from int, older bool) int {
	q = strings.ToLower(q)
	if q == "" || len(f.entries) == 0 {
		return -1
	}
	first := f.entries[0].seq
	i := len(f.entries) - 1
	if !older {
		i = 0
	}
	if from >= 0 {
		i = from - first
		if older {
			i--
		} else {
			i++
		}
	}
	for i >= 0 && i < len(f.entries) {
		if strings.Contains(strings.ToLower(f.entries[i].it.plain()), q) {
			return f.entries[i].seq
		}
		if older {
			i--
		} else {
			i++
		}
	}
	return -1
}

// show scrolls so that the item with sequence seq starts at the top of the
// view (or as near as the bottom allows).
func (f *feed) show(seq int) {
	if len(f.entries) == 0 {
		return
	}
	idx := seq - f.entries[0].seq
	if idx < 0 || idx >= len(f.entries) {
		return
	}
	after := 0
	for i := len(f.entries) - 1; i > idx; i-- {
		after += len(f.layout(f.entries[i]))
	}
	own := len(f.layout(f.entries[idx]))
	f.offset = max(after+own-f.h, 0)
}
