package gen

import "github.com/lantern-if/lantern/zmachine/zasm"

// verbs writes the verb routines: what happens when no object's before
// routine took the action.
func (g *game) verbs() {
	r := &g.r
	verb := func(v int, body func(f fn, o, next, k, n2 zasm.Operand)) {
		f := fn{r.verbs[v]}
		body(f, f.Local("o"), f.Local("next"), f.Local("k"), f.Local("n2"))
	}
	say := func(f fn, text string) func() {
		return func() {
			f.Line(text)
			f.RTrue()
		}
	}
	printNoun := func(f fn, before, after string) {
		f.Print(before)
		f.Op("print_obj", g.noun)
		f.Line(after)
	}
	goDir := func(f fn, d int) {
		f.Op("store", g.dir, d)
		f.Call(r.verbs[vGo])
	}
	verb(vLook, func(f fn, o, next, k, n2 zasm.Operand) { f.Call(r.look) })
	verb(vExamine, func(f fn, o, next, k, n2 zasm.Operand) {
		f.If(not(yes(r.describe, g.noun)), func() { printNoun(f, "You see nothing special about the ", ".") })
		f.If(and(has(g.noun, aContainer), has(g.noun, aOpen), child(g.noun, k)), func() {
			f.Print("In the ")
			f.Op("print_obj", g.noun)
			f.Print(" you can see ")
			f.Call(r.list, g.noun, 0)
			f.Line(".")
		})
	})
	verb(vInventory, func(f fn, o, next, k, n2 zasm.Operand) {
		f.If(not(child(g.player, o)), say(f, "You are empty-handed."))
		f.Line("You are carrying:")
		f.Children(g.player, o, next, func() {
			f.Print("  ")
			f.Call(r.printA, o)
			f.If(and(has(o, aLightable), has(o, aLight)), func() { f.Print(" (lit)") })
			f.NewLine()
			f.If(and(has(o, aContainer), has(o, aOpen)), func() {
				f.Children(o, k, n2, func() {
					f.Print("    ")
					f.Call(r.printA, k)
					f.NewLine()
				})
			})
		})
	})
	verb(vTake, func(f fn, o, next, k, n2 zasm.Operand) {
		f.If(eq(g.noun, g.everyObj), func() {
			f.If(not(yes(r.isLit)), say(f, "It's too dark to see what's here."))
			f.Children(g.location, o, next, func() {
				f.If(and(has(o, aTakeable), not(has(o, aScenery))), func() {
					f.Op("inc", k)
					f.Op("print_obj", o)
					f.Print(": ")
					f.Call(r.takeOne, o)
				})
			})
			f.If(zero(k), func() { f.Line("There is nothing here to take.") })
			f.RTrue()
		})
		f.Call(r.takeOne, g.noun)
	})
	verb(vDrop, func(f fn, o, next, k, n2 zasm.Operand) {
		f.If(eq(g.noun, g.everyObj), func() {
			f.Children(g.player, o, next, func() {
				f.Op("inc", k)
				f.Op("print_obj", o)
				f.Print(": ")
				f.Call(r.dropOne, o)
			})
			f.If(zero(k), func() { f.Line("You aren't carrying anything.") })
			f.RTrue()
		})
		f.Call(r.dropOne, g.noun)
	})
	verb(vOpen, func(f fn, o, next, k, n2 zasm.Operand) {
		f.If(not(has(g.noun, aOpenable)), say(f, "That's not something you can open."))
		f.If(has(g.noun, aOpen), say(f, "It's already open."))
		f.If(has(g.noun, aLocked), say(f, "It seems to be locked."))
		f.Op("set_attr", g.noun, aOpen)
		f.If(and(has(g.noun, aContainer), child(g.noun, k)), func() {
			f.Print("You open the ")
			f.Op("print_obj", g.noun)
			f.Print(", revealing ")
			f.Call(r.list, g.noun, 0)
			f.Line(".")
		}, func() { f.Line("Opened.") })
	})
	verb(vClose, func(f fn, o, next, k, n2 zasm.Operand) {
		f.If(not(has(g.noun, aOpenable)), say(f, "That's not something you can close."))
		f.If(not(has(g.noun, aOpen)), say(f, "It's already closed."))
		f.Op("clear_attr", g.noun, aOpen)
		f.Line("Closed.")
	})
	verb(vUnlock, func(f fn, o, next, k, n2 zasm.Operand) {
		f.If(zero(g.second), func() {
			printNoun(f, "What do you want to unlock the ", " with?")
			f.RTrue()
		})
		f.If(not(has(g.noun, aLocked)), say(f, "That isn't locked."))
		f.Line("That doesn't seem to fit the lock.")
	})
	verb(vLock, func(f fn, o, next, k, n2 zasm.Operand) { f.Line("You have no reason to lock that.") })
	verb(vGive, func(f fn, o, next, k, n2 zasm.Operand) {
		f.If(zero(g.second), func() {
			printNoun(f, "What do you want to give the ", " to?")
			f.RTrue()
		})
		f.If(not(in(g.noun, g.player)), say(f, "You aren't holding that."))
		f.If(not(has(g.second, aPerson)), say(f, "You can't give things to that."))
		f.Line("Nobody seems interested.")
	})
	verb(vLight, func(f fn, o, next, k, n2 zasm.Operand) {
		f.If(not(has(g.noun, aLightable)), say(f, "You can't light that."))
		f.If(has(g.noun, aLight), say(f, "It's already lit."))
		f.CallStore(k, r.isLit)
		f.Op("set_attr", g.noun, aLight)
		printNoun(f, "The ", " flickers into life.")
		f.If(zero(k), func() {
			f.NewLine()
			f.Call(r.look)
		})
	})
	verb(vExtinguish, func(f fn, o, next, k, n2 zasm.Operand) {
		f.If(not(has(g.noun, aLightable)), say(f, "You can't extinguish that."))
		f.If(not(has(g.noun, aLight)), say(f, "It isn't lit."))
		f.Op("clear_attr", g.noun, aLight)
		printNoun(f, "The ", " goes out.")
		f.If(not(yes(r.isLit)), func() { f.Line("It is now pitch dark.") })
	})
	verb(vRead, func(f fn, o, next, k, n2 zasm.Operand) {
		f.If(not(yes(r.isLit)), say(f, "It's too dark to read."))
		f.Op("get_prop", g.noun, pText).Store(k)
		f.If(zero(k), say(f, "There's nothing written on it."))
		f.Op("print_paddr", k)
		f.NewLine()
	})
	verb(vScore, func(f fn, o, next, k, n2 zasm.Operand) {
		f.Print("Your score is ")
		f.Op("print_num", g.score)
		f.Print(" out of a possible 100, in ")
		f.Op("print_num", g.moves)
		f.Line(" moves.")
	})
	verb(vWait, func(f fn, o, next, k, n2 zasm.Operand) { f.Line("Time passes.") })
	verb(vQuit, func(f fn, o, next, k, n2 zasm.Operand) {
		f.Print("Do you really want to quit? (yes or no) >")
		f.If(yes(r.confirm), func() {
			f.Line("Goodbye.")
			f.Op("quit")
		})
		f.Line("Right you are.")
	})
	verb(vRestart, func(f fn, o, next, k, n2 zasm.Operand) {
		f.Print("Do you really want to start again? (yes or no) >")
		f.If(yes(r.confirm), func() { f.Op("restart") })
		f.Line("Right you are.")
	})
	verb(vGo, func(f fn, o, next, k, n2 zasm.Operand) {
		f.If(not(yes(r.isLit)), func() {
			f.Line(darkDeath)
			f.Call(r.die)
		})
		f.Op("get_prop", g.location, g.dir).Store(k)
		f.If(zero(k), say(f, "You can't go that way."))
		f.Call(r.tryExit, k)
	})
	verb(vEnter, func(f fn, o, next, k, n2 zasm.Operand) {
		f.If(zero(g.noun), func() {
			goDir(f, pIn)
			f.RTrue()
		})
		f.Line("That's not something you can enter.")
	})
	verb(vClimb, func(f fn, o, next, k, n2 zasm.Operand) {
		f.If(zero(g.noun), func() {
			goDir(f, pU)
			f.RTrue()
		})
		f.Line("You can't climb that.")
	})
	verb(vHelp, func(f fn, o, next, k, n2 zasm.Operand) { f.Line(help) })
	verb(vAttack, func(f fn, o, next, k, n2 zasm.Operand) {
		f.If(eq(g.noun, g.troll), say(f, "The troll catches your fist, looks at it with mild interest, and hands it back. Perhaps not."))
		f.Line("Violence isn't the answer to this one.")
	})
	verb(vEat, func(f fn, o, next, k, n2 zasm.Operand) { f.Line("That's not something you can eat.") })
}

// specials writes the exits and actions peculiar to one place or thing.
func (g *game) specials() {
	r := &g.r
	rm := &g.rooms
	t := &g.things
	body := func(x *zasm.Routine, w func(f fn, k zasm.Operand)) {
		f := fn{x}
		w(f, f.Local("k"))
	}
	say := func(f fn, text string) func() {
		return func() {
			f.Line(text)
			f.RTrue()
		}
	}
	goDir := func(f fn, d int) {
		f.Op("store", g.dir, d)
		f.Call(r.verbs[vGo])
		f.RTrue()
	}
	via := func(f fn, k zasm.Operand, exit *zasm.Routine) {
		f.CallStore(k, exit)
		f.If(not(zero(k)), func() { f.Call(r.gotoRoom, k) })
		f.RTrue()
	}
	verbIs := func(vs ...any) cond { return eq(g.verb, vs...) }
	// own makes a before routine act only when its object is the noun (it
	// also runs when the object is the second noun).
	own := func(f fn, o *zasm.Object) { f.If(not(eq(g.noun, o)), f.RFalse) }

	// The window behind the cottage: ajar until opened, then a way in.
	body(r.windowDesc, func(f fn, k zasm.Operand) {
		f.If(has(t.window, aOpen), func() { f.Line("The window is open wide enough to climb through.") },
			func() { f.Line("The window is slightly ajar. Perhaps you could open it further.") })
	})
	body(r.windowBefore, func(f fn, k zasm.Operand) {
		own(f, t.window)
		f.If(verbIs(vOpen), func() {
			f.If(has(t.window, aOpen), say(f, "It's already open."))
			f.Op("set_attr", t.window, aOpen)
			f.Line("With some effort, you heave the window open wide enough to climb through.")
			f.RTrue()
		})
		f.If(verbIs(vClose), func() {
			f.If(not(has(t.window, aOpen)), say(f, "It's as closed as it gets: slightly ajar."))
			f.Op("clear_attr", t.window, aOpen)
			f.Line("You push the window back until it is only slightly ajar.")
			f.RTrue()
		})
		f.If(verbIs(vEnter, vClimb), func() {
			f.If(eq(g.location, rm.garden), func() { via(f, k, r.windowIn) })
			via(f, k, r.windowOut)
		})
		f.RFalse()
	})
	body(r.windowIn, func(f fn, k zasm.Operand) {
		f.If(not(has(t.window, aOpen)), func() {
			f.Line("The gap is far too narrow. Perhaps you could open the window further.")
			f.Ret(0)
		})
		f.Line("You clamber through the window and drop into the kitchen.")
		f.If(not(has(t.window, aScored)), func() {
			f.Op("set_attr", t.window, aScored)
			f.Call(r.award, 5)
		})
		f.Ret(rm.kitchen)
	})
	body(r.windowOut, func(f fn, k zasm.Operand) {
		f.If(not(has(t.window, aOpen)), func() {
			f.Line("The window is only slightly ajar. You'd never fit.")
			f.Ret(0)
		})
		f.Line("You squeeze back out through the window.")
		f.Ret(rm.garden)
	})
	body(r.kitchenDesc, func(f fn, k zasm.Operand) {
		f.Print("A poky kitchen that smells of old toast. A wooden table stands in the middle of the floor, and a doorway leads west. ")
		f.If(has(t.window, aOpen), func() { f.Print("The window to the east is wide open. ") },
			func() { f.Print("The window to the east is slightly ajar. ") })
		f.If(has(t.trapdoor, aOpen), func() { f.Line("A trapdoor in the floor stands open.") },
			func() { f.Line("There is a trapdoor in the floor.") })
	})

	// The trapdoor down to the cellar.
	body(r.trapdoorDesc, func(f fn, k zasm.Operand) {
		f.Print("A square wooden trapdoor. ")
		f.If(has(t.trapdoor, aOpen), func() { f.Line("It stands open.") }, func() { f.Line("It is closed.") })
	})
	body(r.trapdoorBefore, func(f fn, k zasm.Operand) {
		own(f, t.trapdoor)
		f.If(verbIs(vOpen), func() {
			f.If(has(t.trapdoor, aOpen), say(f, "It's already open."))
			f.Op("set_attr", t.trapdoor, aOpen)
			f.Line("The trapdoor creaks open, revealing rickety stairs going down into the dark.")
			f.RTrue()
		})
		f.If(verbIs(vClose), func() {
			f.If(not(has(t.trapdoor, aOpen)), say(f, "It's already closed."))
			f.Op("clear_attr", t.trapdoor, aOpen)
			f.Line("The trapdoor thumps shut.")
			f.RTrue()
		})
		f.If(verbIs(vEnter, vClimb), func() {
			f.If(eq(g.location, rm.kitchen), func() { goDir(f, pD) })
			goDir(f, pU)
		})
		f.RFalse()
	})
	body(r.trapdoorDown, func(f fn, k zasm.Operand) {
		f.If(not(has(t.trapdoor, aOpen)), func() {
			f.Line("The trapdoor is closed.")
			f.Ret(0)
		})
		f.Line("You creep down the rickety stairs.")
		f.Ret(rm.cellar)
	})
	body(r.trapdoorUp, func(f fn, k zasm.Operand) {
		f.If(not(has(t.trapdoor, aOpen)), func() {
			f.Line("The trapdoor above you is closed.")
			f.Ret(0)
		})
		f.Ret(rm.kitchen)
	})

	// The stone door: the rusty key does not fit, the brass key does.
	body(r.hallwayDesc, func(f fn, k zasm.Operand) {
		f.Print("A narrow hallway. The north wall is one great slab of grey stone with a stone door set into it, which ")
		f.If(has(t.stoneDoor, aOpen), func() { f.Print("stands open.") }, func() { f.Print("is closed.") })
		f.Line(" The parlour is back to the south.")
	})
	body(r.doorDesc, func(f fn, k zasm.Operand) {
		f.Print("A heavy door of grey stone with a small keyhole. ")
		f.If(has(t.stoneDoor, aOpen), say(f, "It stands open."))
		f.If(has(t.stoneDoor, aLocked), say(f, "It is locked."))
		f.Line("It is closed.")
	})
	body(r.doorBefore, func(f fn, k zasm.Operand) {
		own(f, t.stoneDoor)
		f.If(verbIs(vUnlock), func() {
			f.If(not(has(t.stoneDoor, aLocked)), say(f, "It's already unlocked."))
			f.If(zero(g.second), say(f, "What do you want to unlock the stone door with?"))
			f.If(not(in(g.second, g.player)), say(f, "You aren't holding that."))
			f.If(eq(g.second, t.rustyKey), say(f, "You jiggle the rusty key in the keyhole, but it doesn't fit this lock."))
			f.If(not(eq(g.second, t.brassKey)), say(f, "That doesn't fit the lock."))
			f.Op("clear_attr", t.stoneDoor, aLocked)
			f.Line("The brass key turns smoothly in the lock. *Click*")
			f.If(not(has(t.stoneDoor, aScored)), func() {
				f.Op("set_attr", t.stoneDoor, aScored)
				f.Call(r.award, 5)
			})
			f.RTrue()
		})
		f.If(verbIs(vLock), say(f, "Having got it unlocked, you'd rather leave it that way."))
		f.If(verbIs(vOpen), func() {
			f.If(has(t.stoneDoor, aOpen), say(f, "It's already open."))
			f.If(has(t.stoneDoor, aLocked), say(f, "The stone door is locked. There is a small keyhole below the handle."))
			f.Op("set_attr", t.stoneDoor, aOpen)
			f.If(eq(g.location, rm.hallway), say(f, "The stone door grinds open, revealing a dimly lit study to the north."))
			f.Line("The stone door grinds open.")
			f.RTrue()
		})
		f.If(verbIs(vClose), func() {
			f.If(not(has(t.stoneDoor, aOpen)), say(f, "It's already closed."))
			f.Op("clear_attr", t.stoneDoor, aOpen)
			f.Line("The stone door grinds shut.")
			f.RTrue()
		})
		f.If(verbIs(vEnter), func() {
			f.If(eq(g.location, rm.hallway), func() { goDir(f, pN) })
			goDir(f, pS)
		})
		f.RFalse()
	})
	doorExit := func(x *zasm.Routine, to *zasm.Object) {
		body(x, func(f fn, k zasm.Operand) {
			f.If(not(has(t.stoneDoor, aOpen)), func() {
				f.Line("The stone door is closed.")
				f.Ret(0)
			})
			f.Ret(to)
		})
	}
	doorExit(r.doorNorth, rm.study)
	doorExit(r.doorSouth, rm.hallway)

	// The troll: lunch pleases him (fatally), the coin pays his toll.
	body(r.bridgeDesc, func(f fn, k zasm.Operand) {
		f.Line("A rickety rope bridge crosses a deep gorge to the north, towards the lighthouse. The cliff path leads back south.")
		f.If(eq(g.trollState, 2), say(f, "The troll lounges beside the bridge, admiring his coin."))
		f.If(eq(g.trollState, 1), say(f, "The troll paces up and down at this end of the bridge, full of lunch and looking for something to do."))
		f.Line("A large troll squats at this end of the bridge, picking his teeth with a bone.")
	})
	body(r.trollDesc, func(f fn, k zasm.Operand) {
		f.Print("Big, green and lumpy, with a club the size of a small tree. ")
		f.If(eq(g.trollState, 2), say(f, "He is admiring his coin."))
		f.If(eq(g.trollState, 1), say(f, "He looks full of lunch and bursting with energy."))
		f.Line("He looks hungry, but then trolls always do.")
	})
	body(r.trollBefore, func(f fn, k zasm.Operand) {
		// "pay troll", "pay troll with coin", "give troll coin": turn them
		// into "give coin to troll".
		f.If(and(verbIs(vGive), eq(g.noun, t.troll)), func() {
			f.If(zero(g.second), func() {
				f.If(not(in(t.coin, g.player)), say(f, "The troll holds out a grubby palm, but you have nothing he wants."))
				f.Op("store", g.second, t.coin)
			})
			f.Op("store", g.noun, g.second)
			f.Op("store", g.second, t.troll)
		})
		f.If(and(verbIs(vGive), eq(g.second, t.troll)), func() {
			f.If(not(in(g.noun, g.player)), say(f, "You aren't holding that."))
			f.If(eq(g.noun, t.lunch), func() {
				f.Op("remove_obj", t.lunch)
				f.If(eq(g.trollState, 0), func() { f.Op("store", g.trollState, 1) })
				f.Line("The troll graciously accepts the lunch and wolfs it down, cloth and all. He pats his belly and looks distinctly livelier.")
				f.RTrue()
			})
			f.If(eq(g.noun, t.coin), func() {
				f.Op("remove_obj", t.coin)
				f.Op("store", g.trollState, 2)
				f.Line(`The troll bites the coin, grins a terrible grin and steps aside. "Bridge is open," he rumbles.`)
				f.Call(r.award, 10)
				f.RTrue()
			})
			printNoun := func() {
				f.Print("The troll sniffs at the ")
				f.Op("print_obj", g.noun)
				f.Line(` and hands it back. "Not food. Not toll."`)
			}
			printNoun()
			f.RTrue()
		})
		f.RFalse()
	})
	body(r.bridgeNorth, func(f fn, k zasm.Operand) {
		f.If(eq(g.trollState, 2), func() {
			f.Line("The troll waves you across with a flourish. The bridge sways alarmingly, but holds.")
			f.Ret(rm.lighthouse)
		})
		f.If(eq(g.trollState, 1), func() {
			f.Line(trollDeath)
			f.Call(r.die)
		})
		f.Line(`The troll plants himself in your way. "Toll," he grunts, holding out a grubby palm.`)
		f.Ret(0)
	})
	body(r.bridgeBefore, func(f fn, k zasm.Operand) {
		own(f, t.bridgeObj)
		f.If(verbIs(vEnter, vClimb), func() {
			f.If(eq(g.location, rm.lighthouse), func() { goDir(f, pS) })
			goDir(f, pN)
		})
		f.RFalse()
	})

	// The lamp at the top of the lighthouse: the end.
	body(r.lampBefore, func(f fn, k zasm.Operand) {
		own(f, t.greatLamp)
		f.If(verbIs(vLight), func() {
			f.If(and(in(t.lantern, g.player), has(t.lantern, aLight)), func() {
				f.Line(victoryStory)
				f.Call(r.award, 30)
				f.Call(r.win)
			})
			f.If(in(t.lantern, g.player), say(f, "Your lantern isn't lit, and the wick won't light itself."))
			f.Line("You have nothing to light it with.")
			f.RTrue()
		})
		f.If(verbIs(vExtinguish), say(f, "It isn't lit. That's rather the problem."))
		f.RFalse()
	})
	body(r.lighthouseBefore, func(f fn, k zasm.Operand) {
		own(f, t.lighthouseObj)
		f.If(verbIs(vEnter, vClimb), func() { goDir(f, pU) })
		f.RFalse()
	})

	// Climbing.
	body(r.treeBefore, func(f fn, k zasm.Operand) {
		own(f, t.tree)
		f.If(verbIs(vClimb, vEnter), func() {
			f.If(eq(g.location, rm.orchard), func() { goDir(f, pU) })
			goDir(f, pD)
		})
		f.RFalse()
	})
	body(r.ropeBefore, func(f fn, k zasm.Operand) {
		own(f, t.rope)
		f.If(verbIs(vClimb), func() {
			f.If(eq(g.location, rm.well), func() { goDir(f, pD) })
			goDir(f, pU)
		})
		f.If(verbIs(vTake), say(f, "It is tied to the well, and you may need it to get back up."))
		f.RFalse()
	})

	// Things.
	body(r.lanternDesc, func(f fn, k zasm.Operand) {
		f.Print("A battered tin lantern with a stubby candle inside. ")
		f.If(has(t.lantern, aLight), func() { f.Line("It is lit.") }, func() { f.Line("It is not lit.") })
	})
	body(r.jarDesc, func(f fn, k zasm.Operand) {
		f.Print("A dusty jam jar")
		f.If(has(t.jar, aOpen), func() { f.Line(" with its lid off.") }, func() { f.Line(" with its lid screwed on tight.") })
	})
	body(r.lunchBefore, func(f fn, k zasm.Operand) {
		own(f, t.lunch)
		f.If(verbIs(vEat), say(f, "It isn't yours, and you have a feeling somebody else wants it more."))
		f.RFalse()
	})
}
