package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/memory/rundb"
	"github.com/lantern-if/lantern/themes"
)

// plainLines is a rendering as plain text, each line's trailing blanks cut.
func plainLines(ls []string) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = strings.TrimRight(ansi.Strip(l), " ")
	}
	return out
}

func TestRenderMarkdown(t *testing.T) {
	dark := themes.MustLoad("dark").Palette
	tests := []struct {
		name, md string
		w        int
		want     []string // the plain text, line by line
	}{
		{"heading and paragraph", "## [SUCCESS] Orchard\n\nGoing north\nreaches the orchard.\n", 24,
			[]string{"  [SUCCESS] Orchard", "", "  Going north reaches", "  the orchard."}},
		{"first heading in capitals", "# Knowledge base\n", 30, []string{"  KNOWLEDGE BASE"}},
		{"list", "- take lamp\n- go `north`\n\n3. wait\n", 24, []string{"  • take lamp", "  • go north", "", "  3. wait"}},
		{"nested list", "- rooms\n  - Orchard\n    1. climb\n", 30, []string{"  • rooms", "    • Orchard", "      1. climb"}},
		{"quote", "> superseded by L3\n", 24, []string{"  ▎superseded by L3"}},
		{"emphasis", "*L3 Lane · active* and **bold** and a*b", 24, []string{"  L3 Lane · active and", "  bold and a*b"}},
		{"code fence", "```\nopen mailbox\n```\n", 24, []string{"    open mailbox"}},
		{"link", "see [the map](https://example.com/map)", 60, []string{"  see the map https://example.com/map"}},
		{"wrap", "one two three four five six seven eight nine ten eleven twelve", 24, []string{
			"  one two three four", "  five six seven eight", "  nine ten eleven", "  twelve"}},
		{"table", "| Room | Exits |\n|---|---|\n| Orchard | south, up |\n", 40, []string{
			"   Room             │ Exits", "  ──────────────────┼─────────────────", "   Orchard          │ south, up"}},
		{"escape sequences from outside dropped", "a \x1b[31mred\x1b[m word", 24, []string{"  a red word"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := plainLines(renderMarkdown(tc.md, tc.w, dark))
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

// Every line fits the width asked for, at any width and in every theme.
func TestRenderMarkdownFitsTheWidth(t *testing.T) {
	md := kbSample + "\n> " + strings.Repeat("a long quoted line ", 12) + "\n"
	for _, name := range themes.Names() {
		pal := themes.MustLoad(name).Palette
		for _, w := range []int{20, 33, 56, 76, 96} {
			for i, l := range renderMarkdown(md, w, pal) {
				if lw := ansi.StringWidth(l); lw > w {
					t.Errorf("%s at %d: line %d is %d wide: %q", name, w, i, lw, ansi.Strip(l))
				}
			}
		}
	}
}

// The theme's colours, and no others: the text, the accent of headings and
// bullets, the code colour, the border colour of a table's rules.
func TestRenderMarkdownUsesTheTheme(t *testing.T) {
	for _, name := range themes.Names() {
		pal := themes.MustLoad(name).Palette
		out := strings.Join(renderMarkdown(kbSample, 76, pal), "\n")
		for key, c := range map[string]string{"text": pal.Text, "accent": pal.Accent, "warning (code)": pal.Warning, "border": pal.Border} {
			if sgr := truecolor(c); !strings.Contains(out, sgr) {
				t.Errorf("%s: no %s colour %s (%q)", name, key, c, sgr)
			}
		}
		if strings.Contains(out, "\x1b[38;5;") {
			t.Errorf("%s: a colour not of the palette (256-colour) in\n%q", name, out)
		}
	}
}

// truecolor is the SGR parameters of a foreground "#rrggbb".
func truecolor(hex string) string {
	var r, g, b int
	fmt.Sscanf(hex, "#%02x%02x%02x", &r, &g, &b)
	return fmt.Sprintf("38;2;%d;%d;%d", r, g, b)
}

func TestTidyLine(t *testing.T) {
	const b = "\x1b[34m" // the border's colour
	tests := []struct{ name, in, want string }{
		{"padding dropped", "  \x1b[1mhi\x1b[m\x1b[2m \x1b[m\x1b[2m \x1b[m", "  \x1b[1mhi\x1b[m"},
		{"blank", "  \x1b[2m \x1b[m  ", ""},
		{"unstyled runs take the border colour", " a\x1b[m │ \x1b[1mb\x1b[m", " " + b + "a\x1b[m\x1b[m " + b + "│\x1b[m \x1b[1mb\x1b[m"},
		{"a border run coloured once", "──┼─ │", b + "──┼─ │\x1b[m"},
		{"inner blanks kept", "\x1b[1ma\x1b[m \x1b[1mb\x1b[m", "\x1b[1ma\x1b[m \x1b[1mb\x1b[m"},
		{"a hyperlink's end kept", "\x1b]8;;http://x\x07\x1b[1ml\x1b[m\x1b]8;;\x07  ", "\x1b]8;;http://x\x07\x1b[1ml\x1b]8;;\x07\x1b[m"},
		{"an open style closed", "\x1b[1mab  ", "\x1b[1mab\x1b[m"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tidyLine(tc.in, b); got != tc.want {
				t.Errorf("tidyLine(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestMDCache(t *testing.T) {
	c := newMDCache(100)
	pal := themes.Base()
	k := func(s string, w int) mdKey { return mdKey{s, mdAt{w, pal}} }
	c.put(k("a", 10), []string{strings.Repeat("x", 40)})
	c.put(k("b", 10), []string{strings.Repeat("y", 40)})
	if _, ok := c.get(k("a", 10)); !ok { // a is now the most recent
		t.Fatal("a was not kept")
	}
	if _, ok := c.get(k("a", 11)); ok {
		t.Fatal("another width hit a's entry")
	}
	other := pal
	other.Text = "#000000"
	if _, ok := c.get(mdKey{"a", mdAt{10, other}}); ok {
		t.Fatal("another palette hit a's entry")
	}
	c.put(k("c", 10), []string{strings.Repeat("z", 40)}) // over 100 bytes: b goes
	if _, ok := c.get(k("b", 10)); ok {
		t.Error("the least recently used entry was kept beyond the bound")
	}
	for _, s := range []string{"a", "c"} {
		if _, ok := c.get(k(s, 10)); !ok {
			t.Errorf("%s was dropped", s)
		}
	}
	c.put(k("huge", 10), []string{strings.Repeat("h", 200)})
	if _, ok := c.get(k("huge", 10)); ok || c.size > c.max {
		t.Errorf("an entry beyond the bound was kept (size %d)", c.size)
	}
}

// A second rendering of the same text, width and theme comes from the
// cache: the same lines, not drawn again.
func TestMarkdownLinesCached(t *testing.T) {
	pal := themes.MustLoad("light").Palette
	md := "cached *once* " + t.Name()
	cache := newMDCache(mdCacheBytes)
	a, b := cache.lines(md, mdAt{40, pal}), cache.lines(md, mdAt{40, pal})
	if len(a) == 0 || &a[0] != &b[0] {
		t.Error("the second rendering was not the cached one")
	}
	if c := cache.lines(md, mdAt{41, pal}); len(c) > 0 && &c[0] == &a[0] {
		t.Error("another width shared the rendering")
	}
}

func TestSupervisorMarkdown(t *testing.T) {
	tests := []struct {
		name, head, feedback string
		contradicted         []string
		want                 string
	}{
		{"one paragraph", "supervisor (round 1, wary):", "You keep trying the door.", nil,
			"supervisor (round 1, wary): You keep trying the door."},
		{"the head is literal", "supervisor (round 2, *sly*_x_):", "Go on.", nil,
			`supervisor (round 2, \*sly\*\_x\_): Go on.`},
		{"a block starts on its own", "supervisor (round 3):", "- north\n- east", nil,
			"supervisor (round 3):\n\n- north\n- east"},
		{"contradictions follow", "supervisor (round 4):", "", []string{"the door is open", "no lamp"},
			"supervisor (round 4):\n\nContradicted: the door is open; no lamp"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := supervisorMarkdown(tc.head, tc.feedback, tc.contradicted); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// The supervisor's feedback in the Reasoning pane is drawn as Markdown.
func TestSupervisorFeedbackAsMarkdown(t *testing.T) {
	h := newHarness(t, 200, 60, "dark")
	h.events(engine.TurnStarted{Turn: 3, Actor: engine.ActorAgent},
		engine.SupervisorChanged{Turn: 3, Round: 1, Trust: 0.3, Mood: "calm", Feedback: "Try **the well**:\n\n- go `south`\n- then *down*"})
	h.mustSee("supervisor (round 1, calm): Try the well:", "• go south", "• then down")
	h.mustNotSee("**", "`south`")
}

// kbSample is a knowledge base as a model writes one: headings, a table,
// a code fence, nested lists, a quote, a link.
const kbSample = "# The Keeper's Lantern\n\n" +
	"The demo: find the **lantern** and light the lighthouse.\n\n" +
	"## Rooms\n\n" +
	"| Room | Exits | Notes |\n" +
	"|------|-------|-------|\n" +
	"| Muddy Lane | north, south, east | the cottage door is *boarded* |\n" +
	"| Orchard | south, up | a packed lunch; `climb tree` |\n" +
	"| Old Well | north, down | the rope is frayed |\n\n" +
	"## Walkthrough so far\n\n" +
	"```\nnorth\ntake all\nup\ntake apple\n```\n\n" +
	"- Dangers\n  - the well rope: climb down once\n    1. tie the rope first\n- Score: 10 of 100\n\n" +
	"> Memories are kept in Memories.md; see [the docs](https://example.com/lantern).\n"

// The knowledge base's table and code fence render as a table and a code
// block in the K viewer (issue 38 point 9), at 80 and 120 columns, dark and
// light.
func TestGoldenKnowledgeBase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "knowledgebase.md")
	if err := os.WriteFile(path, []byte(kbSample), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, theme := range []string{"dark", "light", "phosphor"} {
		for _, size := range [][2]int{{80, 24}, {120, 40}} {
			if theme == "phosphor" && size[0] == 80 {
				continue
			}
			name := fmt.Sprintf("knowledge_%s_%dx%d", theme, size[0], size[1])
			t.Run(name, func(t *testing.T) {
				h := newHarness(t, size[0], size[1], theme)
				h.m.opts.KnowledgePath = path
				h.doRendering("K")
				screen := h.screen()
				for _, want := range []string{"THE KEEPER'S LANTERN", "│ Exits", "┼──", "take apple"} {
					if !strings.Contains(screen, want) {
						t.Errorf("the viewer lacks %q:\n%s", want, screen)
					}
				}
				if !tableRow(screen, "Muddy Lane", "│ north, south, east", "│ the cottage door is boarded") {
					t.Errorf("no table row for the lane:\n%s", screen)
				}
				for _, raw := range []string{"|---", "```", "**lantern**"} {
					if strings.Contains(screen, raw) {
						t.Errorf("the viewer shows the Markdown %q:\n%s", raw, screen)
					}
				}
				golden(t, name, h.m.Render())
			})
		}
	}
}

// tableRow reports whether a line of screen holds cells, in order.
func tableRow(screen string, cells ...string) bool {
	for _, l := range strings.Split(screen, "\n") {
		rest, ok := l, true
		for _, c := range cells {
			i := strings.Index(rest, c)
			if i < 0 {
				ok = false
				break
			}
			rest = rest[i+len(c):]
		}
		if ok {
			return true
		}
	}
	return false
}

// After a resize the viewer shows the lines it has until a command brings
// the rendering for the new width; a new theme draws it again at once.
func TestViewerFollowsWidthAndTheme(t *testing.T) {
	path := filepath.Join(t.TempDir(), "knowledgebase.md")
	if err := os.WriteFile(path, []byte(kbSample+"\n"+t.Name()), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, 120, 40, "dark")
	h.m.opts.KnowledgePath = path
	h.doRendering("K")
	v, ok := h.m.dialogs.top().(*viewer)
	if !ok {
		t.Fatalf("K opened %T", h.m.dialogs.top())
	}
	before := v.lines
	_, cmd := h.m.Update(tea.WindowSizeMsg{Width: 90, Height: 40})
	h.m.Render()
	if &v.lines[0] != &before[0] || v.want.w != viewerWidth(90) {
		t.Fatalf("the resize rendered in Update, or wants %d wide (not %d)", v.want.w, viewerWidth(90))
	}
	for _, msg := range run(cmd) {
		h.m.Update(msg)
	}
	if v.at.w != viewerWidth(90) {
		t.Errorf("after the resize's command the viewer is %d wide, want %d", v.at.w, viewerWidth(90))
	}
	for i, l := range v.lines {
		if ansi.StringWidth(l) > v.at.w {
			t.Errorf("line %d is wider than the viewer: %q", i, ansi.Strip(l))
		}
	}
	// Back to the first width: from the cache, no command.
	if _, cmd := h.m.Update(tea.WindowSizeMsg{Width: 120, Height: 40}); cmd != nil || &v.lines[0] != &before[0] {
		t.Error("the first width's rendering did not come from the cache")
	}
	h.m.setTheme("light")
	h.m.Render()
	if v.at.pal != themes.MustLoad("light").Palette {
		t.Error("the viewer kept the dark theme's colours")
	}
}

// A rendering that comes for a width the viewer no longer wants shows
// until the one for the current width comes.
func TestViewerStaleRendering(t *testing.T) {
	c := newCommon(themes.MustLoad("dark"))
	want := mdAt{60, c.theme.Palette}
	v := &viewer{c: c, id: 1, loading: true, want: want}
	old := mdAt{40, c.theme.Palette}
	cmd := v.set(viewerMsg{id: 1, md: "# hi", lines: []string{"old"}, at: old})
	if cmd == nil || v.lines[0] != "old" {
		t.Fatalf("a stale first rendering: lines %q, command %v", v.lines, cmd != nil)
	}
	msg := cmd().(viewerMsg)
	if msg.at != want || v.set(msg) != nil || v.at != want {
		t.Errorf("the rendering asked for: at %v, viewer at %v", msg.at, v.at)
	}
	if v.set(viewerMsg{id: 1, md: "# hi", lines: []string{"older"}, at: old}); v.lines[0] == "older" {
		t.Error("a late rendering for an old width replaced the current one")
	}
}

// A note's Markdown shows rendered under the list; the command that read
// the notes rendered every one, so choosing another renders nothing.
func TestNotesMarkdown(t *testing.T) {
	h := newHarness(t, 100, 30, "dark")
	db := sampleNotes(t)
	ctx := context.Background()
	content := "**Frayed** rope at the `well`:\n\n- climb down once\n- tie it first"
	if _, _, err := db.Remember(ctx, rundb.Note{Content: content, Importance: 90, Location: "Old Well", Turn: 8}); err != nil {
		t.Fatal(err)
	}
	h.m.opts.Notes = db
	h.do("N")
	h.mustSee("Frayed rope at the well:", "• climb down once", "• tie it first")
	h.mustNotSee("`well`")
	v, ok := h.m.dialogs.top().(*notesView)
	if !ok {
		t.Fatalf("N opened %T", h.m.dialogs.top())
	}
	for _, n := range v.notes {
		if _, ok := v.c.md.cached(n.Content, v.at()); !ok {
			t.Errorf("note %d was not rendered by the command that read it", n.ID)
		}
	}
	h.mustSee("#4     90  Old Well: Frayed rope at the well: • climb down once • tie it first")
	h.do("down")
	h.mustSee("│   The cottage door is boarded from inside.")
	h.mustNotSee("│   • climb down once")
}

// Scrolling the viewer renders nothing: the lines stay those rendered.
func TestViewerKeysRenderNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "knowledgebase.md")
	if err := os.WriteFile(path, []byte(kbSample), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, 80, 24, "dark")
	h.m.opts.KnowledgePath = path
	h.doRendering("K")
	v := h.m.dialogs.top().(*viewer)
	first := &v.lines[0]
	for _, k := range []string{"down", "down", "pgdown", "up", "end", "home"} {
		h.key(k)
		h.m.Render()
		if &v.lines[0] != first {
			t.Fatalf("%s rendered the Markdown again", k)
		}
	}
}

// A knowledge base rendered afresh (what opening the viewer costs, off
// the Update goroutine), and from the cache (what a view costs).
func BenchmarkRenderMarkdown(b *testing.B) {
	pal := themes.MustLoad("dark").Palette
	b.Run("fresh", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			renderMarkdown(kbSample, 96, pal)
		}
	})
	b.Run("cached", func(b *testing.B) {
		at := mdAt{96, pal}
		cache := newMDCache(mdCacheBytes)
		cache.lines(kbSample, at)
		b.ReportAllocs()
		for b.Loop() {
			cache.lines(kbSample, at)
		}
	})
}

// Markdown cut at the bound is cut between characters.
func TestRenderMarkdownCutsLongText(t *testing.T) {
	md := strings.Repeat("é", mdMaxInput) // two bytes each: the bound falls inside one
	lines := renderMarkdown(md, 80, themes.Base())
	last := ansi.Strip(lines[len(lines)-1])
	if !strings.Contains(last, "cut here") {
		t.Errorf("no note of the cut: %q", last)
	}
	for _, l := range lines {
		if strings.ContainsRune(l, utf8.RuneError) {
			t.Fatalf("a character was cut in two: %q", l)
		}
	}
}

// After a resize the notes show plain until a command has rendered them
// for the new width.
func TestNotesResized(t *testing.T) {
	h := newHarness(t, 100, 30, "dark")
	db := sampleNotes(t)
	content := "**" + t.Name() + "** first"
	if _, _, err := db.Remember(context.Background(), rundb.Note{Content: content, Importance: 99, Location: "Lane", Turn: 2}); err != nil {
		t.Fatal(err)
	}
	h.m.opts.Notes = db
	h.do("N")
	h.mustSee("│   " + t.Name() + " first")
	_, cmd := h.m.Update(tea.WindowSizeMsg{Width: 70, Height: 30}) // a narrower dialog
	h.mustSee("│   **" + t.Name() + "** first")                    // plain, until rendered
	v := h.m.dialogs.top().(*notesView)
	if _, ok := v.c.md.cached(content, v.at()); ok {
		t.Fatal("the resize rendered in Update")
	}
	for _, msg := range run(cmd) {
		h.m.Update(msg)
	}
	h.mustSee("│   " + t.Name() + " first")
	h.mustNotSee("**")
}
