package engine

import "context"

// SuggestActions asks what the game lets the player do here, for a
// person typing a command: the answer is an ActionsSuggested. The engine
// works it out between turns or while the agent thinks (the game's
// valid actions, probed once per state of the world).
type SuggestActions struct{}

func (SuggestActions) isCommand() {}

// ActionsSuggested is what the game lets the player do after Turn: the
// exits that lead somewhere, in compass order, then the actions that
// change the world, alphabetically (the same list the agent's "you can do
// here" line shows).
type ActionsSuggested struct {
	Turn    int
	Actions []string
}

func (ActionsSuggested) isEvent() {}

// suggest answers SuggestActions (nothing before the first observation).
func (e *Engine) suggest(ctx context.Context) {
	if e.env == nil {
		return
	}
	e.emit(ctx, ActionsSuggested{Turn: e.st.Turn, Actions: canDo(e.env)})
}
