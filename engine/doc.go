// Package engine is the turn loop: one goroutine (Engine.Run) owns the
// game state, asks the agent for proposals, has the critic judge them,
// plays the chosen action through the environment (engine/env), keeps the
// map, and reports everything as Events; clients steer it with Commands.
// What lives outside the loop (Memories.md, the run database, the planning
// managers) reaches it only through the PromptExtras and Lifecycle
// interfaces, which engine/session implements.
package engine
