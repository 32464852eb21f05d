package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/memory/rundb"
)

// An episode is a tree of branches (engine.Rewind). The timeline (T) lists
// the turns of the branch being played, each marked with what happened in
// it, and shows a turn's screen; enter rewinds there, on a new branch, once
// the person says yes. b lists the episode's branches; enter switches to
// one (a rewind to its last turn). Both go to the engine as Rewind
// commands; the engine pauses and announces the branch with a rewound
// EpisodeStarted, which rebuilds the transcript from lantern.db.

// BranchSource is the run database's branch side (*rundb.RunDB, adapted):
// it is read only from commands.
type BranchSource interface {
	// BranchTurns is a branch's whole transcript in order: its parent's
	// turns up to the fork, recursively, then its own (each turn keeps
	// the episode row it was played on).
	BranchTurns(ctx context.Context, branch int64) ([]rundb.Turn, error)
	// Branches are the branches of an episode's tree: the root first,
	// then the children depth-first in the order they were made.
	Branches(ctx context.Context, root int64) ([]BranchRow, error)
	// Root is the first branch of the episode a branch belongs to.
	Root(ctx context.Context, branch int64) (int64, error)
}

// BranchRow is one branch of an episode as the branch list shows it.
type BranchRow struct {
	Episode    int64 // the episode the person started
	ID, Parent int64
	ForkTurn   int
	Name       string
	Turns      int // its last turn's number
	Score      int // after its last turn (its fork's while it has none)
	Moves      int
	Ended      bool
	Reason     string
	Active     bool // the branch --resume continues
	Started    time.Time
}

func (b BranchRow) branch() engine.Branch {
	return engine.Branch{Episode: b.Episode, ID: b.ID, Name: b.Name, Parent: b.Parent, ForkTurn: b.ForkTurn}
}

// Messages of the timeline's reads.
type (
	timelineMsg struct {
		turns   []rundb.Turn
		reviews map[turnKey][]rundb.Review
		err     error
	}
	branchListMsg struct {
		rows []BranchRow
		err  error
	}
)

// turnKey is a stored turn: the episode row it was played on, its number.
type turnKey struct {
	episode int64
	turn    int
}

// loadTimeline reads a branch's transcript (without a BranchSource: the
// episode's turns) and the person's reviews of those turns.
func loadTimeline(ctx context.Context, eps EpisodeSource, br BranchSource, id int64) tea.Cmd {
	return func() tea.Msg {
		var turns []rundb.Turn
		var err error
		if br != nil {
			turns, err = br.BranchTurns(ctx, id)
		} else {
			turns, err = eps.Turns(ctx, id)
		}
		if err != nil || eps == nil {
			return timelineMsg{turns: turns, err: err}
		}
		reviews := map[turnKey][]rundb.Review{}
		seen := map[int64]bool{}
		for _, t := range turns {
			if seen[t.Episode] {
				continue
			}
			seen[t.Episode] = true
			rs, err := eps.Reviews(ctx, t.Episode)
			if err != nil {
				return timelineMsg{err: err}
			}
			for _, r := range rs {
				k := turnKey{t.Episode, r.Turn}
				reviews[k] = append(reviews[k], r)
			}
		}
		return timelineMsg{turns: turns, reviews: reviews}
	}
}

func loadBranches(ctx context.Context, br BranchSource, id int64) tea.Cmd {
	return func() tea.Msg {
		root, err := br.Root(ctx, id)
		if err != nil {
			return branchListMsg{err: err}
		}
		rows, err := br.Branches(ctx, root)
		return branchListMsg{rows: rows, err: err}
	}
}

// mark is one thing the timeline flags on a turn.
type mark struct {
	text string
	st   styleID
}

// deathWords are what the games say when the player dies.
var deathWords = []string{"you have died", "you are dead", "you died"}

// died reports whether a turn's response says the player died.
func died(response string) bool {
	s := strings.ToLower(response)
	for _, w := range deathWords {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// turnMarks are a turn's marks: its score change against the turn before
// (prevScore), a death, the person's command (typed or edited) and the
// person's review of the agent's proposals.
func turnMarks(t rundb.Turn, prevScore int, reviewed bool) []mark {
	var out []mark
	switch d := t.Score - prevScore; {
	case d > 0:
		out = append(out, mark{fmt.Sprintf("+%d", d), stSuccess})
	case d < 0:
		out = append(out, mark{fmt.Sprint(d), stFailure})
	}
	if died(t.Response) {
		out = append(out, mark{"died", stDanger})
	}
	switch engine.Actor(t.Actor) {
	case engine.ActorHuman, engine.ActorHumanEdited:
		out = append(out, mark{"you", stHuman})
	}
	if reviewed {
		out = append(out, mark{"reviewed", stInfo})
	}
	return out
}

func marksText(ms []mark) string {
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = m.text
	}
	return strings.Join(parts, " ")
}

// timeline is the dialog: the branch's turns (or its branch list) above,
// the selected turn's screen (or the question before a rewind) below.
type timeline struct {
	c   *common
	h   host
	ctx context.Context
	eps EpisodeSource
	br  BranchSource // nil: no branch list

	branch  domain.Line // the line shown: the one being played, or the replay's
	current int64       // its ID (the episode's when the branch has none)
	live    int64       // the ID of the line being played
	at      int         // the turn play stands at (replayed: the replay's)
	// replayed: opened from the replay of a stored episode or branch, not
	// the one being played; any of its turns may be rewound to.
	replayed bool

	turns   []rundb.Turn
	reviews map[turnKey][]rundb.Review
	sel     int
	loaded  bool
	err     string
	confirm bool // enter was pressed: y rewinds
	naming  bool // r was pressed at the question: nameIn has the keyboard
	nameIn  textinput.Model
	name    string // the new branch's name ("": unnamed)
	say     string // a word on the last row (why a key did nothing), until the next key
	closed  bool

	listing  bool // the branch list is shown
	rows     []BranchRow
	rowSel   int
	rowsRead bool
	rowsErr  string
}

// showTimeline opens the timeline d and reads its turns and the
// episode's branches.
func showTimeline(h host, d *timeline) tea.Cmd {
	h.open(d)
	cmds := []tea.Cmd{loadTimeline(d.ctx, d.eps, d.br, d.current)}
	if d.br != nil {
		cmds = append(cmds, loadBranches(d.ctx, d.br, d.current))
	}
	return tea.Batch(cmds...)
}

func (d *timeline) frame() frame {
	return frame{title: "Timeline · " + lineName(d.branch), wide: true}
}

func (d *timeline) update(msg tea.Msg) (dialog, tea.Cmd) {
	switch msg := msg.(type) {
	case timelineMsg:
		d.loaded = true
		if msg.err != nil {
			d.err = msg.err.Error()
			return d, nil
		}
		d.turns, d.reviews = msg.turns, msg.reviews
		d.sel = max(len(d.turns)-1, 0)
		for i, t := range d.turns {
			if t.Turn == d.at {
				d.sel = i
			}
		}
	case branchListMsg:
		d.rowsRead = true
		if msg.err != nil {
			d.rowsErr = msg.err.Error()
			return d, nil
		}
		d.rows = msg.rows
		for i, r := range d.rows {
			if r.ID == d.current {
				d.rowSel = i
			}
		}
	case tea.PasteMsg:
		if d.naming {
			var cmd tea.Cmd
			d.nameIn, cmd = d.nameIn.Update(msg)
			return d, cmd
		}
	case tea.KeyPressMsg:
		d.say = ""
		cmd, ok := dispatch(d.bindings(), msg, func(why string) tea.Cmd { d.say = why; return nil })
		if !ok && d.naming {
			d.nameIn, cmd = d.nameIn.Update(msg)
		}
		if d.closed {
			return nil, cmd
		}
		return d, cmd
	}
	return d, nil
}

// bindings are the timeline's keys as it stands: the new branch's name
// typed, the question before a rewind, the branch list or the turns.
func (d *timeline) bindings() []binding {
	k := d.c.keys
	switch {
	case d.naming:
		return []binding{
			shown(described(k.Accept, "keep it"), do(d.keepName)),
			footed(described(k.Back, "back"), do(func() { d.naming = false })),
		}
	case d.confirm:
		return d.questionKeys()
	case d.listing:
		bs := choosing(k, &d.rowSel, func() int { return len(d.rows) }, d.page)
		bs = append(bs, shown(described(k.Accept, "switch to it"), act(d.switchBranch)),
			shown(described(k.Browse, "turns"), do(func() { d.listing = false })))
		return append(bs, closing(k, k.Timeline, &d.closed)...)
	}
	return append(append(choosing(k, &d.sel, func() int { return len(d.turns) }, d.page), d.turnKeys()...), closing(k, k.Timeline, &d.closed)...)
}

// turnKeys are the keys of the turns' list, beside choosing and closing
// (the help lists them).
func (d *timeline) turnKeys() []binding {
	k := d.c.keys
	branches := binding{key: described(k.Browse, "the episode's branches; enter switches to one"), run: do(func() { d.listing = true }),
		disabled: func() string {
			if d.br == nil {
				return "this run database keeps no branches"
			}
			return ""
		}}
	if d.br != nil {
		branches.row = "branches"
	}
	ask := binding{key: described(k.Accept, "rewind to the turn (asks first; memories are not rewound)"), row: "rewind here",
		run: do(func() { _, d.confirm = d.selected() }), disabled: func() string {
			if t, ok := d.selected(); ok && t.Turn >= d.at && !d.replayed {
				return fmt.Sprintf("play stands at turn %d: pick an earlier turn to rewind to", d.at)
			}
			return ""
		}}
	return []binding{ask, branches}
}

// questionKeys answer the question before a rewind.
func (d *timeline) questionKeys() []binding {
	k := d.c.keys
	rewind := func(undo bool) func(tea.KeyPressMsg) tea.Cmd {
		return act(func() tea.Cmd {
			t, _ := d.selected()
			d.closed = true
			return d.h.rewind(engine.Rewind{Branch: d.current, Turn: t.Turn, Name: d.name, UndoMemories: undo},
				rewindAsk{from: d.branch, turn: t.Turn, undo: undo})
		})
	}
	return []binding{
		shown(keyOf("y", "rewind", "y", "Y"), rewind(false)),
		shown(keyOf("u", "rewind, withdraw the agent's later memories", "u", "U"), rewind(true)),
		shown(keyOf("r", "name the branch", "r", "R"), act(d.startNaming)),
		footed(no(k, "back", "n", "N"), do(func() { d.confirm, d.name = false, "" })),
	}
}

// page is how far pgup and pgdn move the selection.
func (d *timeline) page() int { return max(d.h.areaHeight()/3, 1) }

// startNaming gives the keyboard to the new branch's name.
func (d *timeline) startNaming() tea.Cmd {
	d.naming = true
	d.nameIn = textinput.New()
	d.nameIn.Prompt, d.nameIn.Placeholder, d.nameIn.CharLimit = "", "unnamed", domain.MaxBranchName
	d.c.styleInput(&d.nameIn)
	d.nameIn.SetValue(d.name)
	return d.nameIn.Focus()
}

// keepName keeps the name typed, checked as the command line's --branch
// is.
func (d *timeline) keepName() {
	name, err := domain.CleanBranchName(d.nameIn.Value())
	if err != nil {
		d.say = err.Error()
		return
	}
	d.name, d.naming = name, false
}

// switchBranch plays on from the selected branch's last turn.
func (d *timeline) switchBranch() tea.Cmd {
	if d.rowSel >= len(d.rows) {
		return nil
	}
	r := d.rows[d.rowSel]
	if r.ID == d.live {
		d.say = "this is the branch being played: pick another"
		return nil
	}
	d.closed = true
	return d.h.rewind(engine.Rewind{Branch: r.ID, Turn: r.Turns}, rewindAsk{from: d.rowLine(r), turn: r.Turns, switching: true})
}

func (d *timeline) selected() (rundb.Turn, bool) {
	if d.sel < 0 || d.sel >= len(d.turns) {
		return rundb.Turn{}, false
	}
	return d.turns[d.sel], true
}

func (d *timeline) view(w, h int) []string {
	s := d.c.styles
	w = max(w, 20)
	switch {
	case d.listing:
		return d.branchView(w, h)
	case !d.loaded:
		return []string{s.Muted.Render("Reading lantern.db…")}
	case d.err != "":
		return []string{s.Error.Render(fit(d.err, w))}
	case len(d.turns) == 0:
		return append([]string{s.Muted.Render("No turn of this branch is stored yet: play one first."), ""}, d.keysLines(w)...)
	}
	keys := d.keysLines(w)
	if d.confirm && d.say == "" {
		keys = nil // the question says its own keys
	}
	first, last := d.turns[0].Turn, d.turns[len(d.turns)-1].Turn
	head := fmt.Sprintf("%s · turns %d–%d · play stands at turn %d", lineName(d.branch), first, last, d.at)
	if d.replayed {
		head = fmt.Sprintf("%s · turns %d–%d, replayed: a rewind plays on from the turn you pick", lineName(d.branch), first, last)
	}
	out := []string{d.c.render(mkLine(seg{head, stMuted}), w, "", false)}
	listH := min(max((h-4)/2, 3), len(d.turns))
	out = append(out, d.turnRows(w, listH)...)
	out = append(out, d.c.render(mkLine(seg{strings.Repeat("─", w), stSubtle}), w, "", false))
	rest := max(h-len(out)-len(keys), 1)
	var body []string
	if d.confirm {
		body = d.question(w)
	} else {
		body = d.renderLines(d.preview(w), w)
	}
	for i := range rest {
		if i < len(body) {
			out = append(out, body[i])
		} else {
			out = append(out, d.c.render(line{}, w, "", false))
		}
	}
	return append(out, keys...)
}

// turnRows are the list's rows: a heading, then listH turns around the
// selected one.
func (d *timeline) turnRows(w, listH int) []string {
	mw := 0
	marks := make([][]mark, len(d.turns))
	for i, t := range d.turns {
		prev := 0
		if i > 0 {
			prev = d.turns[i-1].Score
		}
		marks[i] = turnMarks(t, prev, len(d.reviews[turnKey{t.Episode, t.Turn}]) > 0)
		mw = max(mw, len([]rune(marksText(marks[i]))))
	}
	mw = min(max(mw, len("marks")), 24)
	rest := max(w-25-mw, 10)
	aw := rest * 11 / 20
	lw := rest - aw
	cols := func(a, b, c, dd, e, f string) string {
		return fit(a, 6) + " " + fit(b, 6) + " " + fit(c, aw) + " " + fit(dd, lw) + " " + fmt.Sprintf("%6s", e) + " " + f
	}
	out := []string{d.c.render(mkLine(seg{"  " + cols("turn", "who", "command", "place", "score", "marks"), stMuted}), w, "", false)}
	top := min(max(d.sel-listH/2, 0), max(len(d.turns)-listH, 0))
	for i := top; i < top+listH && i < len(d.turns); i++ {
		t := d.turns[i]
		cursor, who, st := "  ", "agent", stAgent
		if i == d.sel {
			cursor = "▸ "
		}
		switch engine.Actor(t.Actor) {
		case engine.ActorHuman:
			who, st = "human", stHuman
		case engine.ActorHumanEdited:
			who, st = "edited", stHuman
		}
		l := mkLine(seg{cursor + fit(fmt.Sprintf("T%d", t.Turn), 6) + " ", stMeta}, seg{fit(who, 6) + " ", st},
			seg{fit(oneLine(t.Action), aw) + " ", stCommand}, seg{fit(fmt.Sprintf("L%d %s", t.LocationID, oneLine(t.Location)), lw) + " ", stText},
			seg{fmt.Sprintf("%6d", t.Score) + " ", stText})
		for j, mk := range marks[i] {
			if j > 0 {
				l.segs = append(l.segs, seg{" ", stText})
			}
			l.segs = append(l.segs, seg{mk.text, mk.st})
		}
		l = mkLine(l.segs...)
		out = append(out, d.c.render(l, w, "", i == d.sel))
	}
	return out
}

// preview is the selected turn's screen: what was played, the game's
// response, the reasoning and the person's reviews.
func (d *timeline) preview(w int) []line {
	t, ok := d.selected()
	if !ok {
		return nil
	}
	who, st := "agent", stAgent
	switch engine.Actor(t.Actor) {
	case engine.ActorHuman:
		who, st = "human", stHuman
	case engine.ActorHumanEdited:
		who, st = "human-edited", stHuman
	}
	out := []line{mkLine(seg{fmt.Sprintf("T%d ", t.Turn), stMeta}, seg{who, st}, seg{" › ", stMeta}, seg{oneLine(t.Action), stCommand},
		seg{fmt.Sprintf("   score %d · moves %d · L%d %s", t.Score, t.Moves, t.LocationID, oneLine(t.Location)), stMeta})}
	out = append(out, wrap(strings.Trim(t.Response, "\n"), w, stResponse, "  ")...)
	if r := strings.TrimSpace(t.Reasoning); r != "" {
		out = append(out, mkLine(seg{"reasoning", stMeta}))
		out = append(out, wrap(r, w, stReasoning, "  ")...)
	}
	for _, rv := range d.reviews[turnKey{t.Episode, t.Turn}] {
		out = append(out, wrap("you reviewed: "+rv.Text(), w, stInfo, "")...)
	}
	return out
}

// question asks before a rewind, saying what it does and does not undo.
func (d *timeline) question(w int) []string {
	t, _ := d.selected()
	name := lineName(d.branch)
	q := fmt.Sprintf("Rewind to turn %d of %s (%s)? Play goes on, paused, on a new branch; the turns after %d stay on %s.",
		t.Turn, name, lineAt(d.branch, t.Turn), t.Turn, name)
	if d.replayed && d.live != d.current {
		q += " The line being played now stays as it is too."
	}
	q += fmt.Sprintf(" Memories are not rewound: what was learnt after turn %d stays in Memories.md, unless you choose u: the agent's memories "+
		"written after it are withdrawn (kept as superseded, yours untouched).", t.Turn)
	out := append(wrap(q, w, stWarning, ""), line{})
	if d.naming {
		const label = "New branch's name: "
		d.nameIn.SetWidth(max(w-len(label)-1, 10))
		return append(append(d.renderLines(out, w), d.c.styles.Muted.Render(label)+d.nameIn.View()),
			keyRows(d.c, w, rowKeys(d.bindings())...)...)
	}
	if d.name != "" {
		out = append(out, mkLine(seg{"The new branch will be named ", stMuted}, seg{d.name, stTitle}), line{})
	}
	return append(d.renderLines(out, w), keyRows(d.c, w, rowKeys(d.questionKeys())...)...)
}

// renderLines draws lines at width w.
func (d *timeline) renderLines(ls []line, w int) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = d.c.render(l, w, "", false)
	}
	return out
}

// keysLines are the dialog's last rows: why a key did nothing, or the
// keys, wrapped to w.
func (d *timeline) keysLines(w int) []string {
	if d.say != "" {
		var out []string
		for _, l := range wrap(d.say, w, stWarning, "") {
			out = append(out, d.c.styles.Notice.Render(l.plain()))
		}
		return out
	}
	return keyRows(d.c, w, rowKeys(d.bindings())...)
}

// rowLine is a branch row's line, its episode the timeline's when the row
// does not say.
func (d *timeline) rowLine(r BranchRow) domain.Line {
	l := r.branch()
	if l.Episode == 0 {
		l.Episode = d.branch.Episode
	}
	return l
}
