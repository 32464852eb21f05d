package tui

import (
	"context"
	"errors"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/memory/rundb"
)

// handleEvents applies a batch of engine events and re-arms the reader.
func (m *Model) handleEvents(msg eventsMsg) tea.Cmd {
	var cmds []tea.Cmd
	for _, ev := range msg.evs {
		if c := m.handleEvent(ev); c != nil {
			cmds = append(cmds, c)
		}
	}
	if msg.closed {
		m.game.stopped = true
		if m.game.quitting {
			cmds = append(cmds, tea.Quit)
		}
	} else {
		cmds = append(cmds, readEvents(m.opts.Engine.Events()))
	}
	return tea.Batch(cmds...)
}

// handleEvent applies a turn's events; the others go to handleState.
func (m *Model) handleEvent(ev engine.Event) tea.Cmd {
	rp := m.panes.reasoning
	switch ev := ev.(type) {
	case engine.TurnStarted:
		rp.started(ev.Turn, ev.Actor)
		return m.game.started(ev)
	case engine.ReasoningDelta:
		rp.delta(ev)
	case engine.ProposalMade:
		rp.proposal(ev.Turn, proposed{action: ev.Action, reasoning: ev.Reasoning, thinking: ev.Thinking})
	case engine.CriticVerdict:
		rp.verdict(ev.Turn, engine.Verdict{Action: ev.Action, Score: ev.Score, Justification: ev.Justification, Accepted: ev.Accepted, Stage: ev.Stage})
	case engine.ReviewRequested:
		m.game.thinking = false
		return m.review.requested(ev)
	case engine.ReviewMode:
		m.review.on = ev.On
	case engine.EpisodeStarted:
		return m.episodeStarted(ev)
	case engine.TurnResult:
		m.played(liveTurn(ev), ev.Line)
		_, typing := topIs[*commandLine](&m.dialogs)
		return m.cmdline.played(typing)
	case engine.ActionsSuggested:
		m.cmdline.suggestions(ev)
	default:
		return m.handleState(ev)
	}
	return nil
}

// handleState applies the events that change what the panes and the
// status bar show besides the turns.
func (m *Model) handleState(ev engine.Event) tea.Cmd {
	ps, g := m.panes, m.game
	switch ev := ev.(type) {
	case engine.MemoryChanged:
		return loadMemories(m.opts.Memories, false)
	case engine.MapChanged:
		ps.mapp.setMap(ev.Map)
	case engine.ObjectivesChanged:
		ps.objectives.counts(len(ev.Active), len(ev.Completed))
		return loadObjectives(m.opts.Objectives)
	case engine.TurnCompleted:
		g.metrics = &ev
	case engine.SupervisorChanged:
		g.supervisor = &ev
		ps.reasoning.supervised(ev)
	case engine.ErrorEvent:
		return m.engineError(ev)
	case engine.Idle:
		return g.idle(ev)
	case engine.Settling:
		ps.transcript.addNote(fmt.Sprintf("Finishing the work of the last %d turn(s) before going back…", ev.Turns), stSystem)
	case engine.EpisodeEnded:
		name := fmt.Sprintf("Episode %d", ev.Episode)
		if ev.Line.Parent != 0 {
			name = lineName(ev.Line) // a branch ended, not its episode's main line
		}
		ps.transcript.addNote(fmt.Sprintf("%s ended (%s): score %d in %d moves, %d turns.", name, ev.Reason, ev.Score, ev.Moves, ev.Turns), stEpisode)
	case engine.Stopped:
		g.stopped, g.thinking, g.rewinding = true, false, nil
		if ev.Err != nil {
			m.log.Error("engine stopped", "err", ev.Err)
			ps.transcript.addNote("The engine stopped: "+ev.Err.Error()+" (q quits)", stError)
		} else if !g.quitting {
			ps.transcript.addNote("The engine has stopped (q quits).", stSystem)
		}
	}
	return nil
}

// episodeStarted numbers the new episode and shows its opening as turn 0.
func (m *Model) episodeStarted(ev engine.EpisodeStarted) tea.Cmd {
	if ev.Resumed {
		return m.resumed(ev)
	}
	g := m.game
	g.episode++
	if ev.Episode > 0 {
		g.episode = ev.Episode // numbered by the run database
	}
	g.branch = ev.Branch
	g.markEpisode(m.panes)
	o := ev.Observation
	m.played(shownTurn{text: o.Text, loc: o.Location, score: o.Score, moves: o.Moves}, ev.Branch)
	return nil
}

// played shows a turn played on line l. The turn names its own line: the
// status bar reports it on that line, whatever an earlier event said.
func (m *Model) played(t shownTurn, l engine.Branch) {
	g, ps := m.game, m.panes
	g.follow(l)
	m.review.pending = nil
	ps.transcript.addTurn(t, g.episode)
	ps.reasoning.played(t)
	ps.mapp.moved(t.loc)
	g.turn, g.score, g.moves, g.loc = t.turn, t.score, t.moves, t.loc
	ps.memory.moved(t.loc)
	if t.turn > 0 {
		g.lastActor = t.actor
		g.thinking = false
	}
	if t.actor == engine.ActorAgent && m.server.noticed() {
		// The agent was answered: the server is back.
		m.server.notice = notice{}
	}
	m.log.Debug("turn", "turn", t.turn, "actor", t.actor, "action", t.action, "score", t.score, "loc", t.loc.ID)
}

func (m *Model) engineError(ev engine.ErrorEvent) tea.Cmd {
	if ev.Err == nil {
		return nil
	}
	m.log.Warn("engine error", "turn", ev.Turn, "fatal", ev.Fatal, "err", ev.Err)
	if a := m.game.rewinding; a != nil && a.failed(ev.Err) {
		// Play stays where it was: the footer and the transcript say so.
		m.game.rewinding = nil
		m.panes.transcript.addNote(fmt.Sprintf("The rewind failed; play stays on %s at turn %d: %s", lineName(m.game.line()), m.game.turn, ev.Err), stError)
		return m.setFlash("rewind failed: "+ev.Err.Error(), true)
	}
	sv := m.server
	if isModelServerError(ev.Err) && sv.models != nil && sv.unreachable() && errors.Is(ev.Err, llm.ErrUnreachable) {
		return nil // one notice says it already; the skipped calls add nothing
	}
	m.panes.reasoning.failed(ev.Turn, shortError(ev.Err))
	if isModelServerError(ev.Err) && sv.models != nil {
		sv.notice = modelNotice(sv.models.Host(), sv.models.API(), m.game.roleModels[config.RoleAgent], ev.Err)
		return nil
	}
	if ev.Fatal {
		m.panes.transcript.addNote("Error: "+ev.Err.Error(), stError)
	}
	return m.setFlash(ev.Err.Error(), true)
}

// resumed shows a resumed episode as it stood: its turns from lantern.db
// (by actor, with their reasoning; a branch's from its root on); the
// engine's map follows as a MapChanged. Without the database only the last
// turn's text. A rewind (or a switch of branch) is shown the same way, once
// the episode's transcript and reasoning are cleared: the branch's turns up
// to the one play goes on from.
func (m *Model) resumed(ev engine.EpisodeStarted) tea.Cmd {
	g, ps, o := m.game, m.panes, ev.Observation
	left := g.line()
	if ev.Rewound {
		ps.replay = nil // the live game went where the person picked
		m.review.pending = nil
		g.rewound(ps)
		if ev.Episode > 0 {
			g.episode = ev.Episode
		}
	} else {
		g.episode = max(ev.Episode, g.episode+1)
		g.markEpisode(ps)
	}
	g.branch = ev.Branch
	g.follow(ev.Branch)
	ps.mapp.moved(o.Location)
	g.at(ev.Turn, o)
	ps.memory.moved(o.Location)
	note := fmt.Sprintf("Resumed %s after turn %d (the session before stopped there).", lineName(g.line()), ev.Turn)
	upto := 0
	var cmds []tea.Cmd
	if ev.Rewound {
		var flash string
		note, flash = rewoundOutcome(ev, g.line(), g.rewinding, left)
		upto, g.rewinding = ev.Turn, nil
		cmds = append(cmds, m.setFlash(flash, false)) // the progress message's outcome
	}
	g.resumeGen++
	read := storedTurns(m.ctx, m.opts, g.episode, ev.Branch.ID)
	if read == nil {
		ps.transcript.addNote(note, stEpisode)
		ps.transcript.addNote(o.Text, stResponse)
		return tea.Batch(cmds...)
	}
	gen := g.resumeGen
	return tea.Batch(append(cmds, func() tea.Msg {
		turns, err := read()
		if upto > 0 {
			kept := turns[:0:0]
			for _, t := range turns {
				if t.Turn <= upto {
					kept = append(kept, t)
				}
			}
			turns = kept
		}
		return resumedMsg{turns: turns, err: err, note: note, last: o.Text, gen: gen}
	})...)
}

// storedTurns reads the turns of the branch id (0: the episode being
// played's, episode) from lantern.db, in a command; nil without the database.
func storedTurns(ctx context.Context, o Options, episode int, id int64) func() ([]rundb.Turn, error) {
	br, eps := o.Branches, o.Episodes
	switch {
	case br != nil && id != 0:
		return func() ([]rundb.Turn, error) { return br.BranchTurns(ctx, id) }
	case eps != nil:
		ep := int64(episode)
		return func() ([]rundb.Turn, error) { return eps.Turns(ctx, ep) }
	}
	return nil
}

// resumedMsg is a resumed episode's turns, read from lantern.db; gen is
// the resume it answers (a later one makes it stale).
type resumedMsg struct {
	turns      []rundb.Turn
	err        error
	note, last string
	gen        int
}

func (m *Model) handleResumed(msg resumedMsg) tea.Cmd {
	tp, g := m.panes.transcript, m.game
	if msg.gen != g.resumeGen {
		return nil
	}
	if msg.err != nil || len(msg.turns) == 0 {
		tp.addNote(msg.note, stEpisode)
		tp.addNote(msg.last, stResponse)
		if msg.err != nil {
			m.log.Warn("resume: turns", "err", msg.err)
			return m.setFlash("the earlier turns could not be read: "+msg.err.Error(), true)
		}
		return nil
	}
	for _, t := range msg.turns {
		showStored(tp, m.panes.reasoning, t, g.episode)
	}
	if last := msg.turns[len(msg.turns)-1]; last.Turn > 0 {
		g.lastActor = engine.Actor(last.Actor)
	}
	tp.addNote(msg.note, stEpisode)
	return nil
}

// flashMsg is a word for the footer from a command.
type flashMsg struct {
	text string
	err  bool
}
