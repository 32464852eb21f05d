package tui

import (
	"errors"
	"fmt"
	"time"

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
		m.stopped = true
		if m.quitting {
			cmds = append(cmds, tea.Quit)
		}
	} else {
		cmds = append(cmds, readEvents(m.opts.Engine.Events()))
	}
	return tea.Batch(cmds...)
}

func (m *Model) handleEvent(ev engine.Event) tea.Cmd {
	switch ev := ev.(type) {
	case engine.TurnStarted:
		m.thinking = ev.Actor == engine.ActorAgent
		m.reasoning.started(ev)
		if m.thinking {
			m.thinkSecs = 0
			m.thinkID++
			return thinkTick(m.thinkID)
		}
	case engine.ReasoningDelta:
		m.reasoning.delta(ev)
	case engine.ProposalMade:
		m.reasoning.proposal(ev)
	case engine.CriticVerdict:
		m.reasoning.verdict(ev)
	case engine.ReviewRequested:
		return m.reviewRequested(ev)
	case engine.ReviewMode:
		m.reviewOn = ev.On
	case engine.EpisodeStarted:
		return m.episodeStarted(ev)
	case engine.TurnResult:
		cmd := m.turnResult(ev)
		m.input.SetSuggestions(nil) // what could be done before the turn
		if _, typing := topIs[*commandLine](m); typing {
			return tea.Batch(cmd, m.suggest())
		}
		return cmd
	case engine.ActionsSuggested:
		m.suggestions(ev)
	case engine.MemoryChanged:
		return m.loadMemories(false)
	case engine.MapChanged:
		m.mapp.setMap(ev.Map)
	case engine.ObjectivesChanged:
		m.objectives.counts(len(ev.Active), len(ev.Completed))
		return m.loadObjectives()
	case engine.TurnCompleted:
		m.metrics, m.haveMetrics = ev, true
	case engine.SupervisorChanged:
		m.supervisor, m.haveSupervisor = ev, true
		m.reasoning.supervised(ev)
	case engine.ErrorEvent:
		return m.engineError(ev)
	case engine.Idle:
		m.mode, m.thinking = ev.Mode, false
		if m.stepping && ev.Mode == engine.Paused {
			if m.queuedSteps > 0 {
				m.queuedSteps--
				m.mode = engine.Stepping
				return m.send(engine.Step{})
			}
			m.stepping = false
		}
	case engine.Settling:
		m.transcript.addNote(fmt.Sprintf("Finishing the work of the last %d turn(s) before going back…", ev.Turns), stSystem)
	case engine.EpisodeEnded:
		name := fmt.Sprintf("Episode %d", ev.Episode)
		if ev.Line.Parent != 0 {
			name = lineName(ev.Line) // a branch ended, not its episode's main line
		}
		m.transcript.addNote(fmt.Sprintf("%s ended (%s): score %d in %d moves, %d turns.", name, ev.Reason, ev.Score, ev.Moves, ev.Turns), stEpisode)
	case engine.Stopped:
		m.stopped, m.thinking, m.rewinding = true, false, nil
		if ev.Err != nil {
			m.log.Error("engine stopped", "err", ev.Err)
			m.transcript.addNote("The engine stopped: "+ev.Err.Error()+" (q quits)", stError)
		} else if !m.quitting {
			m.transcript.addNote("The engine has stopped (q quits).", stSystem)
		}
	}
	return nil
}

// episodeStarted numbers the new episode and shows its opening as turn 0.
func (m *Model) episodeStarted(ev engine.EpisodeStarted) tea.Cmd {
	if ev.Resumed {
		return m.resumed(ev)
	}
	m.episode++
	if ev.Episode > 0 {
		m.episode = ev.Episode // numbered by the run database
	}
	m.branch = ev.Branch
	m.follow(ev.Branch)
	m.markEpisode()
	return m.turnResult(engine.TurnResult{Line: ev.Branch, Observation: ev.Observation})
}

// turnResult shows a turn played. The turn names its own line: the
// status bar reports it on that line, whatever an earlier event said.
func (m *Model) turnResult(ev engine.TurnResult) tea.Cmd {
	o := ev.Observation
	m.follow(ev.Line)
	m.pending = nil
	m.transcript.addTurn(ev, m.episode)
	m.reasoning.played(ev)
	m.mapp.turn(ev)
	m.turn, m.score, m.moves, m.loc = ev.Turn, o.Score, o.Moves, o.Location
	m.memory.moved(o.Location)
	if ev.Turn > 0 {
		m.lastActor = ev.Actor
		m.thinking = false
	}
	if ev.Actor == engine.ActorAgent && m.notice.kind != noticeNone {
		// The agent was answered: the server is back.
		m.notice = notice{}
	}
	m.log.Debug("turn", "turn", ev.Turn, "actor", ev.Actor, "action", ev.Action, "score", o.Score, "loc", o.Location.ID)
	return nil
}

func (m *Model) engineError(ev engine.ErrorEvent) tea.Cmd {
	if ev.Err == nil {
		return nil
	}
	m.log.Warn("engine error", "turn", ev.Turn, "fatal", ev.Fatal, "err", ev.Err)
	if a := m.rewinding; a != nil && a.failed(ev.Err) {
		return m.rewindFailed(ev.Err)
	}
	if isModelServerError(ev.Err) && m.opts.Models != nil && m.notice.kind == noticeUnreachable && errors.Is(ev.Err, llm.ErrUnreachable) {
		return nil // one notice says it already; the skipped calls add nothing
	}
	m.reasoning.failed(ev.Turn, shortError(ev.Err))
	if isModelServerError(ev.Err) && m.opts.Models != nil {
		m.notice = modelNotice(m.opts.Models.Host(), m.roleModels[config.RoleAgent], ev.Err)
		return nil
	}
	if ev.Fatal {
		m.transcript.addNote("Error: "+ev.Err.Error(), stError)
	}
	return m.setFlash(ev.Err.Error(), true)
}

// thinkTickMsg counts the seconds the agent has been thinking.
type thinkTickMsg struct{ id int }

func thinkTick(id int) tea.Cmd {
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return thinkTickMsg{id: id} })
}

// handleOllama takes the result of a check of the model server.
func (m *Model) handleOllama(msg ollamaMsg) tea.Cmd {
	m.checking = false
	if msg.err == nil {
		m.log.Info("ollama", "host", m.opts.Models.Host(), "version", msg.version)
		wasNotice := m.notice.kind != noticeNone
		m.notice = notice{}
		if wasNotice {
			return m.setFlash(fmt.Sprintf("Ollama %s at %s is ready", msg.version, m.opts.Models.Host()), false)
		}
		return nil
	}
	m.log.Warn("ollama", "host", m.opts.Models.Host(), "err", msg.err)
	m.notice = modelNotice(m.opts.Models.Host(), m.roleModels[config.RoleAgent], msg.err)
	return nil
}

// retryOllama checks the server again.
func (m *Model) retryOllama() tea.Cmd {
	if m.opts.Models == nil || m.checking {
		return nil
	}
	m.checking = true
	return tea.Batch(checkOllama(m.ctx, m.opts.Models), m.setFlash("asking Ollama at "+m.opts.Models.Host()+"…", false))
}

// startPull downloads the missing model with a progress bar.
func (m *Model) startPull() tea.Cmd {
	if m.opts.Models == nil || m.pull != nil || m.notice.kind != noticeNoModel {
		return nil
	}
	ps := &pullState{model: m.notice.model, status: "starting", ch: make(chan pullMsg, 16)}
	ps.bar = newProgressBar(m.c)
	m.pull = ps
	return tea.Batch(runPull(m.ctx, m.opts.Models, ps.model, ps.ch), readPull(ps.ch))
}

func (m *Model) handlePull(msg pullMsg) tea.Cmd {
	ps := m.pull
	if ps == nil {
		return nil
	}
	if msg.done {
		m.pull = nil
		if msg.err != nil {
			m.log.Warn("pull", "model", ps.model, "err", msg.err)
			return m.setFlash("pull failed: "+msg.err.Error(), true)
		}
		m.log.Info("pull", "model", ps.model, "done", true)
		return tea.Batch(m.setFlash("pulled "+ps.model, false), m.retryOllama())
	}
	ps.status = msg.p.Status
	if msg.p.Total > 0 {
		ps.percent = float64(msg.p.Completed) / float64(msg.p.Total)
	}
	return readPull(ps.ch)
}

// resumed shows a resumed episode as it stood: its turns from lantern.db
// (by actor, with their reasoning; a branch's from its root on); the
// engine's map follows as a MapChanged. Without the database only the last
// turn's text. A rewind (or a switch of branch) is shown the same way, once
// the episode's transcript and reasoning are cleared: the branch's turns up
// to the one play goes on from.
func (m *Model) resumed(ev engine.EpisodeStarted) tea.Cmd {
	o := ev.Observation
	left := m.line()
	if ev.Rewound {
		m.replay = nil // the live game went where the person picked
		m.rewound()
		if ev.Episode > 0 {
			m.episode = ev.Episode
		}
	} else {
		m.episode = max(ev.Episode, m.episode+1)
		m.markEpisode()
	}
	m.branch = ev.Branch
	m.follow(ev.Branch)
	m.mapp.turn(engine.TurnResult{Turn: ev.Turn, Observation: o})
	m.turn, m.score, m.moves, m.loc = ev.Turn, o.Score, o.Moves, o.Location
	m.memory.moved(o.Location)
	note := fmt.Sprintf("Resumed %s after turn %d (the session before stopped there).", lineName(m.line()), ev.Turn)
	upto := 0
	var cmds []tea.Cmd
	if ev.Rewound {
		var flash string
		note, flash = rewoundOutcome(ev, m.line(), m.rewinding, left)
		upto, m.rewinding = ev.Turn, nil
		cmds = append(cmds, m.setFlash(flash, false)) // the progress message's outcome
	}
	m.resumeGen++
	br, eps, ctx, gen := m.opts.Branches, m.opts.Episodes, m.ctx, m.resumeGen
	var read func() ([]rundb.Turn, error)
	switch id := ev.Branch.ID; {
	case br != nil && id != 0:
		read = func() ([]rundb.Turn, error) { return br.BranchTurns(ctx, id) }
	case eps != nil:
		ep := int64(m.episode)
		read = func() ([]rundb.Turn, error) { return eps.Turns(ctx, ep) }
	default:
		m.transcript.addNote(note, stEpisode)
		m.transcript.addNote(o.Text, stResponse)
		return tea.Batch(cmds...)
	}
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

// markEpisode notes where the episode starts in the transcript and the
// reasoning, which a rewind clears back to.
func (m *Model) markEpisode() {
	m.epMark.transcript, m.epMark.reasoning = m.transcript.feed.next, m.reasoning.feed.next
}

// rewound clears what the episode showed (its turns are shown again from
// lantern.db, up to the turn play goes on from) and what was in flight:
// the engine abandoned it and paused.
func (m *Model) rewound() {
	m.transcript.cutFrom(m.epMark.transcript)
	m.reasoning.cutFrom(m.epMark.reasoning)
	m.pending, m.thinking, m.stepping, m.queuedSteps = nil, false, false, 0
	m.mode, m.lastActor = engine.Paused, ""
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
	if msg.gen != m.resumeGen {
		return nil
	}
	if msg.err != nil || len(msg.turns) == 0 {
		m.transcript.addNote(msg.note, stEpisode)
		m.transcript.addNote(msg.last, stResponse)
		if msg.err != nil {
			m.log.Warn("resume: turns", "err", msg.err)
			return m.setFlash("the earlier turns could not be read: "+msg.err.Error(), true)
		}
		return nil
	}
	for _, t := range msg.turns {
		showStored(m.transcript, m.reasoning, t, m.episode)
	}
	if last := msg.turns[len(msg.turns)-1]; last.Turn > 0 {
		m.lastActor = engine.Actor(last.Actor)
	}
	m.transcript.addNote(msg.note, stEpisode)
	return nil
}

// flashMsg is a word for the footer from a command.
type flashMsg struct {
	text string
	err  bool
}
