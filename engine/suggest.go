package engine

import "context"

// SuggestActions asks what the game lets the player do here, for a
// person typing a command: the answer is an ActionsSuggested. The engine
// works it out between turns or while the agent thinks (the game's
// valid actions, probed once per state of the world).
type SuggestActions struct{}

func (SuggestActions) isCommand() {}

// suggest answers SuggestActions (nothing before the first observation).
func (e *Engine) suggest(ctx context.Context) {
	if e.env == nil {
		return
	}
	e.emit(ctx, ActionsSuggested{Turn: e.st.Turn, Actions: canDo(e.env)})
}
