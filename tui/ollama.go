package tui

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"charm.land/bubbles/v2/progress"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/llm"
)

// Models is the model server as the TUI sees it (*llm.Client).
type Models interface {
	Host() string
	// API is the server's protocol (config.APIOllama or config.APIOpenAI).
	API() string
	// Loopback: the server is on this machine (else the TUI says so).
	Loopback() bool
	Version(ctx context.Context) (string, error)
	CheckRole(ctx context.Context, role string, needs ...string) error
	Models(ctx context.Context) ([]llm.ModelSummary, error)
	Pull(ctx context.Context, model string, progress func(llm.PullProgress)) error
	Role(name string) (config.Role, bool)
}

const checkTimeout = 5 * time.Second

// ollamaMsg is the result of a check of the server and the agent's model.
type ollamaMsg struct {
	version string
	err     error
}

// checkOllama asks the server for its version, then whether it has the
// agent's model.
func checkOllama(ctx context.Context, m Models) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, checkTimeout)
		defer cancel()
		v, err := m.Version(ctx)
		if err != nil {
			return ollamaMsg{err: err}
		}
		return ollamaMsg{version: v, err: m.CheckRole(ctx, config.RoleAgent)}
	}
}

// notice is a problem the screen states plainly until it is solved.
type notice struct {
	kind   noticeKind
	text   string
	model  string // the missing model
	hidden bool   // esc hid it (the problem stays: the agent's keys still say so)
}

type noticeKind int

const (
	noticeNone noticeKind = iota
	noticeUnreachable
	noticeNoModel
	noticeOther
)

// modelNotice says what a model-server error means for the person, in
// the words of the server's protocol (api).
func modelNotice(host, api, agentModel string, err error) notice {
	var le *llm.Error
	model := agentModel
	if errors.As(err, &le) && le.Model != "" {
		model = le.Model
	}
	if errors.As(err, &le) && le.Host != "" {
		host, api = le.Host, le.API
	}
	openai := api == config.APIOpenAI
	switch {
	case errors.Is(err, llm.ErrUnreachable) && openai:
		return notice{kind: noticeUnreachable, text: fmt.Sprintf(
			"No OpenAI-compatible server answers at %s. Start it, or give its address (--base-url, or base_url in [server]). "+
				"The agent waits; you can still play by hand: i types a command. r retries.", host)}
	case errors.Is(err, llm.ErrUnreachable):
		return notice{kind: noticeUnreachable, text: fmt.Sprintf(
			"Ollama is not reachable at %s. Start it with `ollama serve`, or set OLLAMA_HOST to where it runs. "+
				"The agent waits; you can still play by hand: i types a command. r retries.", host)}
	case errors.Is(err, llm.ErrModelNotFound) && openai:
		return notice{kind: noticeNoModel, model: model, text: fmt.Sprintf(
			"The OpenAI-compatible server at %s does not serve the model %s: load it on the server; ctrl+l picks another. "+
				"You can still play by hand: i types a command.", host, model)}
	case errors.Is(err, llm.ErrModelNotFound):
		return notice{kind: noticeNoModel, model: model, text: fmt.Sprintf(
			"Ollama at %s does not have the model %s. P pulls it (or run `ollama pull %s`); ctrl+l picks another. "+
				"You can still play by hand: i types a command.", host, model, model)}
	}
	return notice{kind: noticeOther, text: fmt.Sprintf("%s at %s: %v. r retries.", llm.ServerName(api), host, err)}
}

// isModelServerError tells the errors that deserve the notice.
func isModelServerError(err error) bool {
	return errors.Is(err, llm.ErrUnreachable) || errors.Is(err, llm.ErrModelNotFound)
}

// shortError is an error for the Reasoning pane: a model-server failure
// (which the notice explains at length) in a few words.
func shortError(err error) string {
	msg := err.Error()
	var what string
	switch {
	case errors.Is(err, llm.ErrUnreachable):
		what = "model server unreachable"
	case errors.Is(err, llm.ErrModelNotFound):
		what = "model not found"
	default:
		return msg
	}
	var le *llm.Error
	if errors.As(err, &le) {
		if le.Role != "" {
			what += fmt.Sprintf(" (role %s, model %s)", le.Role, le.Model)
		}
		// Keep what the caller put in front ("memory synthesis at turn 2: ").
		if prefix, _, ok := strings.Cut(msg, le.Error()); ok {
			return prefix + what
		}
	}
	return what
}

// pullState is a model download in progress.
type pullState struct {
	model   string
	status  string
	percent float64
	bar     progress.Model
	ch      chan pullMsg
}

type pullMsg struct {
	p    llm.PullProgress
	done bool
	err  error
}

// runPull downloads the model, reporting progress on ch (latest wins when
// the screen is behind) and the end on ch too.
func runPull(ctx context.Context, m Models, model string, ch chan pullMsg) tea.Cmd {
	return func() tea.Msg {
		err := m.Pull(ctx, model, func(p llm.PullProgress) {
			select {
			case ch <- pullMsg{p: p}:
			default:
			}
		})
		ch <- pullMsg{done: true, err: err}
		return nil
	}
}

func readPull(ch chan pullMsg) tea.Cmd {
	return func() tea.Msg { return <-ch }
}

// modelsMsg is the server's model list for the picker.
type modelsMsg struct {
	models []llm.ModelSummary
	err    error
}

func listModels(ctx context.Context, m Models) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, checkTimeout)
		defer cancel()
		ms, err := m.Models(ctx)
		return modelsMsg{models: ms, err: err}
	}
}

// modelPicker chooses a model for a role from the server's list. Enter
// uses the model for this session; s then keeps it in the user's
// configuration for next time (only when asked: one Enter never writes it).
type modelPicker struct {
	c      *common
	h      host
	roles  []string
	role   int
	models []llm.ModelSummary
	sel    int
	err    string
	loaded bool
	// current holds the model of each role as the TUI last set or read it
	// (the root's map: the status bar shows the agent's).
	current map[string]string
	// save keeps a choice for next time (nil: nowhere to save it); chosen
	// is the role whose model Enter set last, until s saves it.
	save   func(models map[string]string) tea.Cmd
	chosen string
	closed bool
}

func newModelPicker(m Models, known map[string]string) *modelPicker {
	p := &modelPicker{roles: config.RoleNames(), current: known}
	for _, r := range p.roles {
		if _, ok := known[r]; !ok && m != nil {
			if rc, ok := m.Role(r); ok {
				p.current[r] = rc.Model
			}
		}
	}
	return p
}

func (p *modelPicker) frame() frame { return frame{title: "Model per role"} }

// bindings: another role (←/→), choose a model and use it, save the
// choice, close.
func (p *modelPicker) bindings() []binding {
	k := p.c.keys
	role := func(by int) func(tea.KeyPressMsg) tea.Cmd {
		return do(func() {
			p.role = (p.role + by + len(p.roles)) % len(p.roles)
			p.selectCurrent()
		})
	}
	bs := []binding{
		{key: keyOf("←/→", "role"), row: "role"},
		bind(alias(keyOf("←", "previous role", "left", "h"), "", k.PrevPane), "", role(-1)),
		bind(alias(keyOf("→", "next role", "right", "l"), "", k.NextPane), "", role(1)),
	}
	page := func() int { return max(p.h.areaHeight()/3, 1) }
	nav := choosing(k, &p.sel, func() int { return len(p.models) }, page)
	nav[0].key, nav[0].row = described(nav[0].key, "model"), "model"
	bs = append(append(bs, nav...), shown(described(k.Accept, "use it"), act(p.use)))
	save := bind(keyOf("s", "save the choice for next time"), "", act(p.keep))
	if p.chosen != "" && p.save != nil {
		save.row = "save"
	}
	return append(append(bs, save), closing(k, k.Models, &p.closed)...)
}

func (p *modelPicker) setModels(ms []llm.ModelSummary, err error) {
	p.loaded = true
	p.models = ms
	if err != nil {
		p.err = pickerError(err)
	}
	p.selectCurrent()
}

// sameModel reports whether two model names are one model (Ollama reads a
// name without a tag as :latest).
func sameModel(a, b string) bool {
	tag := func(s string) string {
		if s != "" && !strings.Contains(s, ":") {
			return s + ":latest"
		}
		return s
	}
	return tag(a) == tag(b)
}

// selectCurrent puts the cursor on the model the role uses.
func (p *modelPicker) selectCurrent() {
	p.sel = 0
	for i, m := range p.models {
		if sameModel(m.Name, p.current[p.roles[p.role]]) {
			p.sel = i
		}
	}
}

// pickerError is a plain sentence for a failed model list.
func pickerError(err error) string {
	var le *llm.Error
	switch {
	case errors.Is(err, llm.ErrUnreachable) && errors.As(err, &le):
		return fmt.Sprintf("No model server answers at %s, so there is no list of models. Is %s running? r checks again.", le.Host, llm.ServerName(le.API))
	case errors.Is(err, llm.ErrUnreachable):
		return "No model server answers, so there is no list of models. Is it running? r checks again."
	case errors.Is(err, llm.ErrTimeout):
		return "The model server did not answer in time; close and try again."
	}
	return "The model server could not list its models: " + shortError(err)
}

// update handles the server's list and the keys; a model chosen goes to
// the engine at once.
func (p *modelPicker) update(msg tea.Msg) (dialog, tea.Cmd) {
	switch msg := msg.(type) {
	case modelsMsg:
		p.setModels(msg.models, msg.err)
		return p, nil
	case tea.KeyPressMsg:
		return pressed(p, &p.closed, msg, nil)
	}
	return p, nil
}

// keep saves the model chosen last for next time.
func (p *modelPicker) keep() tea.Cmd {
	if p.chosen == "" || p.save == nil {
		return nil
	}
	role := p.chosen
	p.chosen = ""
	return tea.Batch(p.save(map[string]string{role: p.current[role]}),
		p.h.setFlash(fmt.Sprintf("%s role → %s (saved for next time)", role, p.current[role]), false))
}

// use sets the selected model for the role, for this session.
func (p *modelPicker) use() tea.Cmd {
	if p.sel >= len(p.models) {
		return nil
	}
	role, model := p.roles[p.role], p.models[p.sel].Name
	p.current[role] = model
	p.chosen = role
	word := fmt.Sprintf("%s role → %s for this session", role, model)
	if p.save != nil {
		word += " (s in the picker keeps it)"
	}
	return tea.Batch(p.h.send(engine.SetModel{Role: role, Model: model}), p.h.setFlash(word, false))
}

func (p *modelPicker) view(w, _ int) []string {
	s := p.c.styles
	var roles []string
	line := ""
	for _, r := range p.roles {
		name := s.Muted.Render(r)
		if r == p.roles[p.role] {
			name = s.TabActive.Render(r)
		}
		// The roles wrap: all of them show at any width.
		if line != "" && ansi.StringWidth(line)+1+ansi.StringWidth(r) > w {
			roles = append(roles, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += name
	}
	out := append(roles, line, "")
	role := p.roles[p.role]
	out = append(out, s.Muted.Render(fmt.Sprintf("The %s role uses ", role))+s.Text.Bold(true).Render(orDash(p.current[role])))
	out = append(out, "")
	switch {
	case !p.loaded:
		out = append(out, s.Muted.Render("Asking the server for its models…"))
	case p.err != "":
		out = append(out, p.c.wrapStyled(p.err, w, stError)...)
	case len(p.models) == 0:
		out = append(out, p.c.wrapStyled("The server has no models. `ollama pull qwen3:4b` gets one.", w, stMuted)...)
	}
	for i, m := range p.models {
		detail := strings.TrimSpace(strings.Join([]string{m.Parameters, m.Quantization}, " "))
		row := fit(fmt.Sprintf(" %-28s %s", m.Name, detail), max(w, 10))
		if i == p.sel {
			row = s.Selected.Render(row)
		} else if sameModel(m.Name, p.current[role]) {
			row = s.Info.Render(row)
		} else {
			row = s.Text.Render(row)
		}
		out = append(out, row)
	}
	out = append(out, "")
	if p.chosen != "" && p.save != nil {
		out = append(out, p.c.wrapStyled(fmt.Sprintf("%s uses %s for this session: s keeps it for next time.", p.chosen, p.current[p.chosen]), w, stInfo)...)
	}
	return append(out, keyRows(p.c, w, rowKeys(p.bindings())...)...)
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// server is the model server as the screen shows it: the notice of a
// problem (until it is solved), a check in flight, a pull's progress.
type server struct {
	c        *common
	ctx      context.Context
	models   Models // nil: no model server configured
	ft       *footer
	log      *slog.Logger
	notice   notice
	checking bool
	pull     *pullState
}

// unreachable reports whether the agent's calls cannot be answered.
func (sv *server) unreachable() bool { return sv.notice.kind == noticeUnreachable }

// noticed reports whether a notice stands (shown or hidden).
func (sv *server) noticed() bool { return sv.notice.kind != noticeNone }

// check starts a check of the server.
func (sv *server) check() tea.Cmd {
	if sv.models == nil {
		return nil
	}
	sv.checking = true
	return checkOllama(sv.ctx, sv.models)
}

// checked takes the result of a check (agent: the agent's model).
func (sv *server) checked(msg ollamaMsg, agent string) tea.Cmd {
	sv.checking = false
	if msg.err == nil {
		sv.log.Info("ollama", "host", sv.models.Host(), "version", msg.version)
		was := sv.noticed()
		sv.notice = notice{}
		if was {
			return sv.ft.set(readyText(sv.models.API(), msg.version, sv.models.Host()), false)
		}
		return nil
	}
	sv.log.Warn("ollama", "host", sv.models.Host(), "err", msg.err)
	sv.notice = modelNotice(sv.models.Host(), sv.models.API(), agent, msg.err)
	return nil
}

// retry checks the server again.
func (sv *server) retry() tea.Cmd {
	if sv.models == nil || sv.checking {
		return nil
	}
	return tea.Batch(sv.check(), sv.ft.set("asking "+llm.ServerName(sv.models.API())+" at "+sv.models.Host()+"…", false))
}

// readyText says the server answered (an OpenAI-compatible server has no
// version to give).
func readyText(api, version, host string) string {
	switch {
	case api == config.APIOpenAI:
		return fmt.Sprintf("the OpenAI-compatible server at %s is ready", host)
	case version == "":
		return fmt.Sprintf("Ollama at %s is ready", host)
	}
	return fmt.Sprintf("Ollama %s at %s is ready", version, host)
}

// startPull downloads the missing model with a progress bar.
func (sv *server) startPull() tea.Cmd {
	if sv.models == nil || sv.pull != nil || sv.notice.kind != noticeNoModel {
		return nil
	}
	ps := &pullState{model: sv.notice.model, status: "starting", ch: make(chan pullMsg, 16)}
	ps.bar = newProgressBar(sv.c)
	sv.pull = ps
	return tea.Batch(runPull(sv.ctx, sv.models, ps.model, ps.ch), readPull(ps.ch))
}

// pulled takes a pull's progress, or its end.
func (sv *server) pulled(msg pullMsg) tea.Cmd {
	ps := sv.pull
	if ps == nil {
		return nil
	}
	if msg.done {
		sv.pull = nil
		if msg.err != nil {
			sv.log.Warn("pull", "model", ps.model, "err", msg.err)
			return sv.ft.set("pull failed: "+msg.err.Error(), true)
		}
		sv.log.Info("pull", "model", ps.model, "done", true)
		return tea.Batch(sv.ft.set("pulled "+ps.model, false), sv.retry())
	}
	ps.status = msg.p.Status
	if msg.p.Total > 0 {
		ps.percent = float64(msg.p.Completed) / float64(msg.p.Total)
	}
	return readPull(ps.ch)
}

// hide gives the notice's rows back to the panes (r checks again); it
// reports whether there was a notice to hide.
func (sv *server) hide(thinking bool) (tea.Cmd, bool) {
	if !sv.noticed() || sv.notice.hidden || thinking {
		return nil, false
	}
	sv.notice.hidden = true
	return sv.ft.set("notice hidden: r checks the model server again", false), true
}

// lines are the notice (and a pull's progress) wrapped to w.
func (sv *server) lines(w int) []string {
	var out []string
	if sv.noticed() && !sv.notice.hidden {
		for i, l := range wrap(sv.notice.text, w-2, stWarning, "") {
			prefix := "  "
			if i == 0 {
				prefix = "⚠ "
			}
			out = append(out, sv.c.render(line{segs: append([]seg{{prefix, stWarning}}, l.segs...), width: l.width + 2}, w, "", false))
		}
	}
	if p := sv.pull; p != nil {
		label := fmt.Sprintf("Pulling %s: %s ", p.model, orDash(p.status))
		p.bar.SetWidth(max(w-len(label)-2, 10))
		out = append(out, fit(sv.c.styles.Info.Render(label)+p.bar.ViewAs(p.percent), w))
	}
	return out
}

// openModels opens the model picker and asks the server for its models;
// save keeps a choice for next time (nil: nowhere).
func (sv *server) openModels(h host, current map[string]string, save func(map[string]string) tea.Cmd) tea.Cmd {
	if sv.models == nil {
		return sv.ft.set("no model server is configured", true)
	}
	p := newModelPicker(sv.models, current)
	p.c, p.h, p.save = sv.c, h, save
	h.open(p)
	return listModels(sv.ctx, sv.models)
}
