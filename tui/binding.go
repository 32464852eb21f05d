package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// binding is one key of a component, as data: the keys with the help's
// name for them and its description (a key.Binding, from the keyMap, so a
// key remapped in lantern.toml is remapped here), the footer's short word,
// what the key does, and when it does nothing and why. The help screen,
// the footers and the key routing all read the same bindings.
type binding struct {
	key key.Binding
	// short is the footer's word for the key ("": the footer leaves it out).
	short string
	// row is the key's word in the row of keys a dialog draws itself
	// (inside its box, or on its footer line; "": not there).
	row string
	// run is what the key does; nil: the binding is listed (in the help, a
	// footer) and another binding or a text input acts on the key.
	run func(k tea.KeyPressMsg) tea.Cmd
	// disabled says why the key does nothing now ("": it works); nil:
	// always works.
	disabled func() string
	// active reports whether the binding takes its key now; when it does
	// not, the key goes on to the next component (nil: always).
	active func() bool
}

// bind makes a binding from a key of the keyMap.
func bind(kb key.Binding, short string, run func(tea.KeyPressMsg) tea.Cmd) binding {
	return binding{key: kb, short: short, run: run}
}

// shown is a binding a dialog draws in its own row of keys, its
// description the row's word.
func shown(kb key.Binding, run func(tea.KeyPressMsg) tea.Cmd) binding {
	return binding{key: kb, row: kb.Help().Desc, run: run}
}

// footed is shown, and in the footer too (esc: close, back, cancel).
func footed(kb key.Binding, run func(tea.KeyPressMsg) tea.Cmd) binding {
	b := shown(kb, run)
	b.short = b.row
	return b
}

// act adapts an action that takes no key.
func act(f func() tea.Cmd) func(tea.KeyPressMsg) tea.Cmd {
	return func(tea.KeyPressMsg) tea.Cmd { return f() }
}

// do adapts an action that returns nothing.
func do(f func()) func(tea.KeyPressMsg) tea.Cmd {
	return func(tea.KeyPressMsg) tea.Cmd { f(); return nil }
}

// described is kb with the help's description desc (the keys stay).
func described(kb key.Binding, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(kb.Keys()...), key.WithHelp(kb.Help().Key, desc))
}

// joined is one binding for several keys of the keyMap ("↑/↓", "home/end"),
// named by the first name of each.
func joined(desc string, kbs ...key.Binding) key.Binding {
	var keys, names []string
	for _, kb := range kbs {
		keys = append(keys, kb.Keys()...)
		name, _, _ := strings.Cut(kb.Help().Key, "/")
		names = append(names, name)
	}
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(strings.Join(names, "/"), desc))
}

// alias is kb, named and described as kb is (desc, when given, instead),
// taking the keys of others as well (e and enter edit a note).
func alias(kb key.Binding, desc string, others ...key.Binding) key.Binding {
	keys := kb.Keys()
	for _, o := range others {
		keys = append(keys, o.Keys()...)
	}
	if desc == "" {
		desc = kb.Help().Desc
	}
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(kb.Help().Key, desc))
}

// twice is kb named as pressed twice ("d d"): the first press arms it.
func twice(kb key.Binding, desc string) key.Binding {
	name := kb.Help().Key
	return key.NewBinding(key.WithKeys(kb.Keys()...), key.WithHelp(name+" "+name, desc))
}

// keyOf is a binding of literal keys, for a component's own keys that
// lantern.toml does not remap (a text input's enter, a list's ←/→).
func keyOf(name, desc string, keys ...string) key.Binding {
	if len(keys) == 0 {
		keys = []string{name}
	}
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(name, desc))
}

// why is the reason a binding does nothing now ("": it works).
func (b binding) why() string {
	if b.disabled == nil {
		return ""
	}
	return b.disabled()
}

// dispatch runs the first binding of bs that matches k and works now; ok
// is false when none does. A key whose only matches are disabled says
// why through say (when there is a reason to give).
func dispatch(bs []binding, k tea.KeyPressMsg, say func(string) tea.Cmd) (tea.Cmd, bool) {
	reason := ""
	for _, b := range bs {
		if b.run == nil || !key.Matches(k, b.key) || (b.active != nil && !b.active()) {
			continue
		}
		if r := b.why(); r != "" {
			if reason == "" {
				reason = r
			}
			continue
		}
		return b.run(k), true
	}
	if reason != "" && say != nil {
		return say(reason), true
	}
	return nil, false
}

// hints are the bindings' keys for a footer: the ones with a short word,
// in order.
func hints(bs []binding) []key.Binding { return worded(bs, func(b binding) string { return b.short }) }

// rowKeys are the keys a dialog draws in its own row: the bindings with
// a row word, in order.
func rowKeys(bs []binding) []key.Binding { return worded(bs, func(b binding) string { return b.row }) }

// worded are the enabled bindings' keys described by word, those that
// have one.
func worded(bs []binding, word func(binding) string) []key.Binding {
	var out []key.Binding
	for _, b := range bs {
		if w := word(b); w != "" && b.key.Enabled() {
			out = append(out, described(b.key, w))
		}
	}
	return out
}

// rowText is a footer line's keys as plain text: "enter sends · esc back".
func rowText(bs []binding) string {
	var parts []string
	for _, kb := range rowKeys(bs) {
		parts = append(parts, kb.Help().Key+" "+kb.Help().Desc)
	}
	return strings.Join(parts, " · ")
}

// pressed runs the binding of d's for k; a binding that set *closed takes
// the dialog off the stack.
func pressed(d dialog, closed *bool, k tea.KeyPressMsg, say func(string) tea.Cmd) (dialog, tea.Cmd) {
	cmd, _ := dispatch(d.bindings(), k, say)
	if *closed {
		return nil, cmd
	}
	return d, cmd
}

// choosing are the keyMap's moves (a row, a page, either end) moving the
// selection *sel of a list of n() items, kept on the list; the first is
// the row's "↑/↓ choose".
func choosing(k keyMap, sel *int, n, page func() int) []binding {
	bs := scrolling(k, sel, page)
	for i := range bs {
		run := bs[i].run
		bs[i].run = func(key tea.KeyPressMsg) tea.Cmd {
			cmd := run(key)
			*sel = min(max(*sel, 0), max(n()-1, 0))
			return cmd
		}
	}
	bs[4].key, bs[5].key = described(k.Top, "first"), described(k.Bottom, "last")
	return append([]binding{{key: joined("choose", k.Up, k.Down), row: "choose"}}, bs...)
}

// closing are a dialog's closing keys: esc (the footer's and the row's
// "close"), and q and the key that opened it.
func closing(k keyMap, opener key.Binding, shut *bool) []binding {
	closeIt := do(func() { *shut = true })
	return []binding{
		footed(described(k.Back, "close"), closeIt),
		bind(joined("close", k.Quit, opener), "", closeIt),
	}
}

// bindingGroup is a context's bindings under a title in the help: a pane,
// a dialog, the game's keys.
type bindingGroup struct {
	title string
	keys  []binding
}

// helpRow is one row of the help: a group's heading, or a key and what it
// does.
type helpRow struct{ head, key, desc string }

// helpRows lays groups out as the help's rows; notes are rows that are
// not keys (the map's legend), shown last.
func helpRows(groups []bindingGroup, notes ...helpRow) []helpRow {
	var out []helpRow
	for _, g := range groups {
		out = append(out, helpRow{head: g.title})
		seen := map[string]bool{}
		for _, b := range g.keys {
			h := b.key.Help()
			id := h.Key + "\x00" + h.Desc
			if h.Key == "" || seen[id] {
				continue
			}
			seen[id] = true
			out = append(out, helpRow{key: h.Key, desc: h.Desc})
		}
	}
	return append(out, notes...)
}

// elsewhere says which groups a key works in, for a key pressed where it
// does nothing: "e works in the Memory pane (m)".
func elsewhere(k tea.KeyPressMsg, groups []bindingGroup) string {
	var in []string
	for _, g := range groups {
		for _, b := range g.keys {
			if b.run != nil && key.Matches(k, b.key) {
				in = append(in, g.title)
				break
			}
		}
	}
	switch len(in) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("%s works in the %s", k.String(), in[0])
	}
	return fmt.Sprintf("%s works in the %s and %s", k.String(), strings.Join(in[:len(in)-1], ", "), in[len(in)-1])
}
