// Package export turns an episode of lantern.db into something to share:
// Markdown, JSON, or a single self-contained HTML page (inline CSS, an SVG
// chart of the score over the turns and an SVG of the map; nothing
// fetched). It reads the run database only through the Source methods.
package export

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/lantern-if/lantern/managers/mapper"
	"github.com/lantern-if/lantern/memory/rundb"
	"github.com/lantern-if/lantern/sanitize"
)

// Source is what an export reads of a run database (rundb.RunDB has it).
type Source interface {
	EpisodeSummaries(ctx context.Context) ([]rundb.EpisodeSummary, error)
	Turns(ctx context.Context, episode int64) ([]rundb.Turn, error)
	Reviews(ctx context.Context, episode int64) ([]rundb.Review, error)
	// A branch's whole line (its parents' turns up to its fork, then its
	// own) and the tree of branches it belongs to.
	BranchTurns(ctx context.Context, episode int64) ([]rundb.Turn, error)
	BranchReviews(ctx context.Context, episode int64) ([]rundb.Review, error)
	Branches(ctx context.Context, root int64) ([]rundb.BranchInfo, error)
}

// ErrFormat: an export format Lantern cannot write.
var ErrFormat = errors.New("unknown export format")

// ErrNoEpisode: the run database has no episode by that ID.
var ErrNoEpisode = errors.New("no such episode")

// Formats are the formats Write writes.
func Formats() []string { return []string{"md", "json", "html"} }

// Episode is one episode as exported.
type Episode struct {
	Story string `json:"story,omitempty"`
	// Line is the line of play exported in its written form (1/no-bar),
	// Episode the episode the person started and ID the branch's own
	// stable number (the episode's for its main line).
	Line     string          `json:"line"`
	Episode  int64           `json:"episode"`
	ID       int64           `json:"id"`
	Started  time.Time       `json:"started"`
	Reason   string          `json:"reason"` // "" while unfinished
	Score    int             `json:"score"`
	Moves    int             `json:"moves"`
	Turns    []Turn          `json:"turns"`
	Reviews  ReviewSummary   `json:"reviews"`
	Map      mapper.Snapshot `json:"map"`
	Exported time.Time       `json:"exported"`
	// Branches is the episode's tree when it has more than one line of
	// play (a rewind started another): every branch, this one marked.
	Branches []Branch `json:"branches,omitempty"`
}

// Branch is one line of play of an episode: a root, or a rewind's branch
// from Parent after its turn ForkTurn. Turns is its last turn.
type Branch struct {
	ID       int64  `json:"id"`
	Label    string `json:"label"` // the line's written form, 1/no-bar
	Parent   int64  `json:"parent,omitempty"`
	ForkTurn int    `json:"fork_turn,omitempty"`
	// From is where it forked, written as a turn of a line (1/main:10).
	From   string `json:"from,omitempty"`
	Turns  int    `json:"turns"`
	Score  int    `json:"score"`
	Moves  int    `json:"moves"`
	Ending string `json:"ending"`
	This   bool   `json:"this,omitempty"`  // the branch exported
	Depth  int    `json:"depth,omitempty"` // levels below the root
}

// Turn is one played turn with what led to it.
type Turn struct {
	Turn       int       `json:"turn"`
	Actor      string    `json:"actor"`
	Action     string    `json:"action"`
	Response   string    `json:"response"`
	Reasoning  string    `json:"reasoning,omitempty"`
	LocationID int       `json:"location_id"`
	Location   string    `json:"location"`
	Score      int       `json:"score"`
	Moves      int       `json:"moves"`
	Failed     bool      `json:"failed,omitempty"`
	LLMMillis  float64   `json:"llm_ms"`
	TurnMillis float64   `json:"turn_ms"`
	Verdicts   []Verdict `json:"verdicts,omitempty"`
	Reviews    []Review  `json:"reviews,omitempty"`
	// PlayedOn is the branch the turn was played on when it is not the
	// one exported (a turn it shares with its parent), with its line's
	// written form.
	PlayedOn     int64  `json:"played_on,omitempty"`
	PlayedOnLine string `json:"played_on_line,omitempty"`
}

// Verdict is the critic's judgement of one proposal (as the engine
// records it).
type Verdict struct {
	Action        string  `json:"action"`
	Stage         string  `json:"stage"`
	Score         float64 `json:"score"`
	Accepted      bool    `json:"accepted"`
	Justification string  `json:"justification,omitempty"`
}

// Review is the person's decision on a proposal (review mode).
type Review struct {
	Proposal   string `json:"proposal"`
	Decision   string `json:"decision"`
	Command    string `json:"command,omitempty"`
	Reason     string `json:"reason,omitempty"`
	Remembered bool   `json:"remembered,omitempty"`
	Auto       bool   `json:"auto,omitempty"`
}

// ReviewSummary counts the person's decisions.
type ReviewSummary struct {
	Decisions int `json:"decisions"`
	Accepted  int `json:"accepted"`
	Edited    int `json:"edited"`
	Rejected  int `json:"rejected"`
}

// Load reads an episode: its summary, turns, verdicts and reviews, and the
// map its moves drew.
func Load(ctx context.Context, src Source, id int64) (Episode, error) {
	sums, err := src.EpisodeSummaries(ctx)
	if err != nil {
		return Episode{}, fmt.Errorf("load episode %d: %w", id, err)
	}
	ep := Episode{ID: id, Exported: time.Now().UTC()}
	found := false
	for _, s := range sums {
		if s.ID == id {
			ep.Started, ep.Reason, ep.Score, ep.Moves, found = s.Started, s.Reason, s.Score, s.Moves, true
			ep.Episode, ep.Line = s.Episode, s.Line().String()
		}
	}
	if !found {
		return Episode{}, fmt.Errorf("load episode %d: %w", id, ErrNoEpisode)
	}
	rows, err := src.BranchTurns(ctx, id)
	if err != nil {
		return Episode{}, fmt.Errorf("load episode %d: %w", id, err)
	}
	reviews, err := src.BranchReviews(ctx, id)
	if err != nil {
		return Episode{}, fmt.Errorf("load episode %d: %w", id, err)
	}
	if ep.Branches, err = branches(ctx, src, id); err != nil {
		return Episode{}, fmt.Errorf("load episode %d: %w", id, err)
	}
	byTurn := map[int][]Review{}
	for _, r := range reviews {
		byTurn[r.Turn] = append(byTurn[r.Turn], Review{Proposal: r.Proposal, Decision: r.Decision, Command: r.Command,
			Reason: r.Reason, Remembered: r.Remembered, Auto: r.Auto})
	}
	st := rundb.SumReviews(reviews)
	ep.Reviews = ReviewSummary{Decisions: st.Decisions, Accepted: st.Accepted, Edited: st.Edited, Rejected: st.Rejected}
	ep.Map = EpisodeMap(rows)
	for _, r := range rows {
		t := Turn{Turn: r.Turn, Actor: r.Actor, Action: r.Action, Response: r.Response, Reasoning: strings.TrimSpace(r.Reasoning),
			LocationID: r.LocationID, Location: r.Location, Score: r.Score, Moves: r.Moves, Failed: r.Failed,
			LLMMillis: float64(r.LLM) / 1e6, TurnMillis: float64(r.Duration) / 1e6, Reviews: byTurn[r.Turn]}
		if r.Episode != id {
			t.PlayedOn, t.PlayedOnLine = r.Episode, lineOf(sums, r.Episode)
		}
		if v := strings.TrimSpace(r.Verdicts); v != "" && v != "null" {
			if err := json.Unmarshal([]byte(v), &t.Verdicts); err != nil {
				return Episode{}, fmt.Errorf("load episode %d: turn %d: verdicts: %w", id, r.Turn, err)
			}
		}
		ep.Turns = append(ep.Turns, t)
	}
	return ep, nil
}

// branches is the tree of id's episode, nil when it is a single line.
func branches(ctx context.Context, src Source, id int64) ([]Branch, error) {
	infos, err := src.Branches(ctx, id)
	if err != nil || len(infos) < 2 {
		return nil, err
	}
	depth := map[int64]int{}
	out := make([]Branch, len(infos))
	for i, b := range infos {
		if b.Parent != 0 {
			depth[b.ID] = depth[b.Parent] + 1
		}
		ending := b.Reason
		if ending == "" {
			ending = "unfinished"
		}
		out[i] = Branch{ID: b.ID, Label: b.Line().String(), Parent: b.Parent, ForkTurn: b.ForkTurn, Turns: b.Turns, Score: b.Score,
			Moves: b.Moves, Ending: ending, This: b.ID == id, Depth: depth[b.ID]}
		for _, p := range infos {
			if b.Parent != 0 && p.ID == b.Parent {
				out[i].From = p.Line().At(b.ForkTurn)
			}
		}
	}
	return out, nil
}

// lineOf is the written form of branch id's line, from the summaries.
func lineOf(sums []rundb.EpisodeSummary, id int64) string {
	for _, s := range sums {
		if s.ID == id {
			return s.Line().String()
		}
	}
	return fmt.Sprintf("#%d", id)
}

// Line is the branch in a list of the tree: its line and ID, where it
// forked, where it stands or how it ended, and whether it is the one
// exported.
func (b Branch) Line() string {
	s := fmt.Sprintf("%s (#%d)", b.Label, b.ID)
	if b.From != "" {
		s += " from " + b.From
	}
	s += fmt.Sprintf(": %d turns, score %d, moves %d, %s", b.Turns, b.Score, b.Moves, b.Ending)
	if b.This {
		s += " ← this export"
	}
	return s
}

// EpisodeMap draws the map of recorded turns as the engine drew it: the
// first recorded room is where the walk starts (lantern.db keeps where
// each turn ended), each later turn a move from the room before.
func EpisodeMap(rows []rundb.Turn) mapper.Snapshot {
	moves := make([]mapper.Move, 0, len(rows))
	prev := 0
	for i, r := range rows {
		moves = append(moves, mapper.Move{From: prev, Action: r.Action, To: r.LocationID, ToName: r.Location, Reset: i == 0})
		prev = r.LocationID
	}
	return mapper.FromTurns(moves)
}

// StoryMap is the map of every recorded episode of a story, in order, each
// episode walking the same map (as the engine keeps it across episodes).
func StoryMap(ctx context.Context, src Source) (mapper.Snapshot, error) {
	sums, err := src.EpisodeSummaries(ctx)
	if err != nil {
		return mapper.Snapshot{}, fmt.Errorf("story map: %w", err)
	}
	var moves []mapper.Move
	for i := len(sums) - 1; i >= 0; i-- { // summaries come newest first
		rows, err := src.Turns(ctx, sums[i].ID)
		if err != nil {
			return mapper.Snapshot{}, fmt.Errorf("story map: %w", err)
		}
		prev := 0
		for j, r := range rows {
			moves = append(moves, mapper.Move{From: prev, Action: r.Action, To: r.LocationID, ToName: r.Location, Reset: j == 0})
			prev = r.LocationID
		}
	}
	return mapper.FromTurns(moves), nil
}

// Write writes an episode in a format (md, json or html). The text a model
// or the story sent is data: JSON keeps it verbatim (the C1 controls
// escaped), Markdown and HTML, files for people, have its controls
// neutralised.
func Write(w io.Writer, ep Episode, format string) error {
	var err error
	switch format {
	case "md", "markdown":
		sw := sanitize.NewWriter(w)
		if err = writeMarkdown(sw, ep); err == nil {
			err = sw.Flush()
		}
	case "json":
		enc := json.NewEncoder(sanitize.NewJSONWriter(w))
		enc.SetIndent("", "  ")
		err = enc.Encode(ep)
	case "html":
		sw := sanitize.NewWriter(w)
		if err = writeHTML(sw, ep); err == nil {
			err = sw.Flush()
		}
	default:
		return fmt.Errorf("%w %q (want %s)", ErrFormat, format, strings.Join(Formats(), ", "))
	}
	if err != nil {
		return fmt.Errorf("export episode %d as %s: %w", ep.ID, format, err)
	}
	return nil
}

// ending says how an episode ended.
func (ep Episode) ending() string {
	if ep.Reason == "" {
		return "unfinished"
	}
	return ep.Reason
}

// title is the export's heading.
func (ep Episode) title() string {
	t := fmt.Sprintf("Episode %d", ep.ID)
	if ep.Line != "" {
		t = fmt.Sprintf("Line %s (#%d)", ep.Line, ep.ID)
	}
	if ep.Story != "" {
		t += " of " + ep.Story
	}
	return t
}
