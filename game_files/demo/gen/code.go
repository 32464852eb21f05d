package gen

import "github.com/lantern-if/lantern/zmachine/zasm"

// The code: the main loop, the parser, the verbs and the world's special
// cases.

var sp = zasm.SP

const intro = "THE KEEPER'S LANTERN\n" +
	"A very small adventure, built for Lantern. Release 1 / Serial number " + Serial + "\n" +
	"Type HELP if you are stuck for words.\n\n" +
	"The lighthouse on the headland has gone dark, and a ship is due tonight. Somebody ought to do something about it. Somebody, it turns out, is you.\n\n"

const help = "This is a small adventure. Say what you want to do in plain English: LOOK, EXAMINE the things you see (X for short), " +
	"TAKE and DROP them (TAKE ALL works too), OPEN, CLOSE, UNLOCK something WITH something, GIVE something TO someone, " +
	"LIGHT, EXTINGUISH, READ and ENTER. Move with NORTH, SOUTH, EAST and WEST (or N, S, E, W, NE, NW, SE, SW), UP, DOWN, " +
	"IN and OUT. INVENTORY (I) lists what you carry, WAIT (Z) lets time pass, SCORE shows how you are doing, and RESTART " +
	"and QUIT do what they say."

const (
	darkText     = "It is pitch dark. Something nearby is breathing, slowly and hungrily. Stumbling about blind would be a very bad idea."
	darkDeath    = "You take one blind step, then another, and then something with far too many teeth finds you. It eats noisily."
	trollDeath   = "The troll frowns and blocks your path, snarling. Full of lunch and fresh energy, he swings his club with real enthusiasm, and you sail off the bridge into the gorge. It is a long way down."
	victoryStory = "You touch the lantern's flame to the great wick. WHUMP! The lamp roars into light, and the lenses fling its beam far across the water. Out at sea, the little ship turns away from the rocks, and a bell rings out in thanks."
)

func (g *game) code() {
	g.verbTables()
	g.mainLoop()
	g.parser()
	g.world2()
	g.verbs()
	g.specials()
}

func (g *game) verbTables() {
	r := &g.r
	flags := map[int]byte{
		vExamine: fNoun, vTake: fNoun | fAll, vDrop: fNoun | fAll, vOpen: fNoun, vClose: fNoun, vUnlock: fNoun,
		vLock: fNoun, vGive: fNoun, vLight: fNoun, vExtinguish: fNoun, vRead: fNoun, vScore: fMeta, vQuit: fMeta,
		vRestart: fMeta, vHelp: fMeta, vAttack: fNoun, vEat: fNoun,
	}
	names := map[int]string{vExamine: "examine", vTake: "take", vDrop: "drop", vOpen: "open", vClose: "close",
		vUnlock: "unlock", vLock: "lock", vGive: "give", vLight: "light", vExtinguish: "extinguish", vRead: "read",
		vAttack: "attack", vEat: "eat"}
	rs := []any{0}
	ns := []any{0}
	fs := []byte{0}
	for v := 1; v < numVerbs; v++ {
		rs = append(rs, r.verbs[v])
		if n, ok := names[v]; ok {
			ns = append(ns, g.b.String(n))
		} else {
			ns = append(ns, 0)
		}
		fs = append(fs, flags[v])
	}
	g.verbRoutines = g.b.WordTable("verb_routines", rs...)
	g.verbNames = g.b.WordTable("verb_names", ns...)
	g.verbFlags = g.b.ByteTable("verb_flags", fs...)
}

func (g *game) mainLoop() {
	r := &g.r
	m := fn{r.main}
	g.b.SetMain(r.main)
	m.Print(intro)
	m.Op("store", g.location, g.lane)
	m.Op("insert_obj", g.player, g.lane)
	m.Call(r.floaters)
	m.Call(r.look)
	m.Label("turn")
	m.Print("\n>")
	m.Op("read", g.text, g.parse)
	m.CallStore(sp, r.parse)
	m.Op("jz", sp).Branch("turn", true)
	m.Op("inc", g.moves)
	m.Jump("turn")
}

// parser writes parse (the command into verb, noun, prep, second and dir),
// resolve (a noun phrase into an object), perform and their helpers.
func (g *game) parser() {
	r := &g.r
	{
		f := fn{r.parse}
		i, n, w, wc, start, k := f.Local("i"), f.Local("n"), f.Local("w"), f.Local("wc"), f.Local("start"), f.Local("k")
		perform := func() {
			f.CallStore(sp, r.perform)
			f.Op("ret_popped")
		}
		f.Op("loadb", g.parse, 1).Store(wc)
		f.While(lt(i, wc), func() {
			f.Op("mul", i, 2).Store(sp)
			f.Op("add", sp, 1).Store(sp)
			f.Op("loadw", g.parse, sp).Store(w)
			f.If(zero(w), func() {
				f.Call(r.unknownWord, i)
				f.Ret(0)
			})
			f.Op("loadb", w, 4).Store(k)
			f.If(not(bits(k, wSkip)), func() {
				f.Op("storew", g.wordList, n, w)
				f.Op("inc", n)
			})
			f.Op("inc", i)
		})
		f.If(zero(n), func() {
			f.Line("I beg your pardon?")
			f.Ret(0)
		})
		f.Op("store", g.noun, 0)
		f.Op("store", g.second, 0)
		f.Op("store", g.prep, 0)
		f.Op("loadw", g.wordList, 0).Store(w)
		f.Op("loadb", w, 4).Store(k)
		f.If(bits(k, wDir), func() {
			f.Op("store", g.verb, vGo)
			f.Op("loadb", w, 6).Store(g.dir)
			perform()
		})
		f.If(not(bits(k, wVerb)), func() {
			f.Line("That's not a verb I recognise.")
			f.Ret(0)
		})
		f.Op("loadb", w, 5).Store(g.verb)
		f.Op("store", start, 1)
		// "go north", "climb up", "enter in".
		f.If(and(eq(g.verb, vGo, vClimb, vEnter), gt(n, 1)), func() {
			f.Op("loadw", g.wordList, 1).Store(w)
			f.Op("loadb", w, 4).Store(k)
			f.If(bits(k, wDir), func() {
				f.Op("store", g.verb, vGo)
				f.Op("loadb", w, 6).Store(g.dir)
				perform()
			})
		})
		f.If(eq(g.verb, vGo), func() {
			f.Line("Which way do you want to go?")
			f.Ret(0)
		})
		// "look at the lantern", "look in the jar", "look lantern".
		f.If(and(eq(g.verb, vLook), gt(n, 1)), func() {
			f.Op("store", g.verb, vExamine)
			f.Op("loadw", g.wordList, 1).Store(w)
			f.Op("loadb", w, 4).Store(k)
			f.If(bits(k, wPrep), func() { f.Op("store", start, 2) })
		})
		// The first noun phrase runs to a preposition or the end.
		f.Op("store", i, start)
		found := f.NewLabel("prep")
		f.While(lt(i, n), func() {
			f.Op("loadw", g.wordList, i).Store(w)
			f.Op("loadb", w, 4).Store(k)
			f.If(bits(k, wPrep), func() { f.Jump(found) })
			f.Op("inc", i)
		})
		f.Label(found)
		f.CallStore(g.noun, r.resolve, start, i)
		f.If(eq(g.noun, -1), func() { f.Ret(0) })
		f.If(lt(i, n), func() {
			f.Op("loadw", g.wordList, i).Store(w)
			f.Op("loadb", w, 7).Store(g.prep)
			f.Op("add", i, 1).Store(k)
			f.CallStore(g.second, r.resolve, k, n)
			f.If(eq(g.second, -1), func() { f.Ret(0) })
			f.If(eq(g.second, g.everyObj), func() {
				f.Line(`You can't use "all" there.`)
				f.Ret(0)
			})
		})
		perform()
	}
	{
		f := fn{r.resolve}
		start, end, o, count, found := f.Local("start"), f.Local("end"), f.Local("o"), f.Local("count"), f.Local("found")
		i, ok, k := f.Local("i"), f.Local("ok"), f.Local("k")
		f.If(not(lt(start, end)), func() { f.Ret(0) })
		f.Op("sub", end, start).Store(k)
		f.If(eq(k, 1), func() {
			f.Op("loadw", g.wordList, start).Store(k)
			f.Op("loadb", k, 4).Store(k)
			f.If(bits(k, wAll), func() { f.Ret(g.everyObj) })
		})
		f.Op("store", o, 1)
		f.While(not(gt(o, len(g.objects))), func() {
			f.If(and(not(has(o, aRoom)), yes(r.inScope, o)), func() {
				f.Op("store", ok, 1)
				f.Op("store", i, start)
				f.While(lt(i, end), func() {
					f.Op("loadw", g.wordList, i).Store(k)
					f.If(not(yes(r.hasName, o, k)), func() { f.Op("store", ok, 0) })
					f.Op("inc", i)
				})
				f.If(eq(ok, 1), func() {
					f.If(lt(count, 8), func() { f.Op("storew", g.candidates, count, o) })
					f.Op("inc", count)
					f.Op("store", found, o)
				})
			})
			f.Op("inc", o)
		})
		f.If(zero(count), func() {
			f.Line("You can't see any such thing.")
			f.Ret(-1)
		})
		f.If(eq(count, 1), func() { f.Ret(found) })
		f.If(gt(count, 8), func() { f.Op("store", count, 8) })
		f.Print("Which do you mean, ")
		f.Op("sub", count, 1).Store(k)
		f.Op("store", i, 0)
		f.While(lt(i, count), func() {
			f.If(gt(i, 0), func() {
				f.If(eq(i, k), func() { f.Print(" or ") }, func() { f.Print(", ") })
			})
			f.Print("the ")
			f.Op("loadw", g.candidates, i).Store(sp)
			f.Op("print_obj", sp)
			f.Op("inc", i)
		})
		f.Line("?")
		f.Ret(-1)
	}
	{
		f := fn{r.inScope}
		o, p := f.Local("o"), f.Local("p")
		f.If(eq(o, g.player), f.RTrue)
		f.Label("up")
		f.Op("get_parent", o).Store(p)
		f.If(zero(p), f.RFalse)
		f.If(eq(p, g.player), f.RTrue)
		f.If(eq(p, g.location), func() {
			f.CallStore(sp, r.isLit)
			f.Op("ret_popped")
		})
		f.If(not(and(has(p, aContainer), has(p, aOpen))), f.RFalse)
		f.Op("store", o, p)
		f.Jump("up")
	}
	{
		f := fn{r.hasName}
		o, w, a, n, i := f.Local("o"), f.Local("w"), f.Local("a"), f.Local("n"), f.Local("i")
		f.Op("get_prop_addr", o, pName).Store(a)
		f.If(zero(a), f.RFalse)
		f.Op("get_prop_len", a).Store(n)
		f.Op("div", n, 2).Store(n)
		f.While(lt(i, n), func() {
			f.Op("loadw", a, i).Store(sp)
			f.If(eq(sp, w), f.RTrue)
			f.Op("inc", i)
		})
		f.RFalse()
	}
	{
		f := fn{r.unknownWord}
		i, e, length, pos, k := f.Local("i"), f.Local("e"), f.Local("len"), f.Local("pos"), f.Local("k")
		f.Op("mul", i, 4).Store(e)
		f.Op("add", e, 4).Store(sp)
		f.Op("loadb", g.parse, sp).Store(length)
		f.Op("add", e, 5).Store(sp)
		f.Op("loadb", g.parse, sp).Store(pos)
		f.Print(`I don't know the word "`)
		f.While(lt(k, length), func() {
			f.Op("add", pos, k).Store(sp)
			f.Op("loadb", g.text, sp).Store(sp)
			f.Op("print_char", sp)
			f.Op("inc", k)
		})
		f.Line(`".`)
	}
	{
		f := fn{r.perform}
		fl, rt := f.Local("f"), f.Local("r")
		f.Op("loadb", g.verbFlags, g.verb).Store(fl)
		f.If(and(bits(fl, fNoun), zero(g.noun)), func() {
			f.Print("What do you want to ")
			f.Op("loadw", g.verbNames, g.verb).Store(sp)
			f.Op("print_paddr", sp)
			f.Line("?")
			f.Ret(0)
		})
		f.If(and(eq(g.noun, g.everyObj), not(bits(fl, fAll))), func() {
			f.Line(`You can't use "all" with that verb.`)
			f.Ret(0)
		})
		f.Op("loadw", g.verbRoutines, g.verb).Store(rt)
		f.If(bits(fl, fMeta), func() {
			f.Call(rt)
			f.Ret(0)
		})
		f.If(and(not(zero(g.noun)), not(eq(g.noun, g.everyObj)), yes(r.before, g.noun)), func() { f.Ret(1) })
		f.If(and(not(zero(g.second)), yes(r.before, g.second)), func() { f.Ret(1) })
		f.Call(rt)
		f.Ret(1)
	}
	{
		f := fn{r.before}
		o, a := f.Local("o"), f.Local("a")
		f.Op("get_prop", o, pBefore).Store(a)
		f.If(zero(a), f.RFalse)
		f.CallStore(sp, a)
		f.Op("ret_popped")
	}
	{
		f := fn{r.confirm}
		w := f.Local("w")
		f.Op("read", g.text, g.parse)
		f.Op("loadb", g.parse, 1).Store(sp)
		f.If(zero(sp), f.RFalse)
		f.Op("loadw", g.parse, 1).Store(w)
		f.If(eq(w, g.word("yes"), g.word("y")), f.RTrue)
		f.RFalse()
	}
}

// world2 writes the routines about places and things: looking, moving,
// scoring, the end.
func (g *game) world2() {
	r := &g.r
	{
		f := fn{r.isLit}
		o, next := f.Local("o"), f.Local("next")
		f.If(has(g.location, aLight), f.RTrue)
		f.Children(g.player, o, next, func() { f.If(has(o, aLight), f.RTrue) })
		f.Children(g.location, o, next, func() { f.If(has(o, aLight), f.RTrue) })
		f.RFalse()
	}
	{
		f := fn{r.describe}
		o, a := f.Local("o"), f.Local("a")
		f.Op("get_prop", o, pDescFn).Store(a)
		f.If(not(zero(a)), func() {
			f.Call(a)
			f.RTrue()
		})
		f.Op("get_prop", o, pDesc).Store(a)
		f.If(zero(a), f.RFalse)
		f.Op("print_paddr", a)
		f.NewLine()
		f.RTrue()
	}
	{
		f := fn{r.listable}
		o := f.Local("o")
		f.If(or(eq(o, g.player), has(o, aScenery)), f.RFalse)
		f.If(has(o, aMoved), f.RTrue)
		f.Op("get_prop", o, pInitial).Store(sp)
		f.Op("jz", sp).Branch(zasm.ReturnTrue, true)
		f.RFalse()
	}
	{
		f := fn{r.look}
		o, next, n := f.Local("o"), f.Local("next"), f.Local("n")
		f.If(not(yes(r.isLit)), func() {
			f.Line(darkText)
			f.RTrue()
		})
		f.Op("print_obj", g.location)
		f.NewLine()
		f.Call(r.describe, g.location)
		f.Children(g.location, o, next, func() {
			f.If(yes(r.listable, o), func() { f.Op("inc", n) }, func() {
				f.If(and(not(eq(o, g.player)), not(has(o, aScenery))), func() {
					f.Op("get_prop", o, pInitial).Store(sp)
					f.Op("print_paddr", sp)
					f.NewLine()
				})
			})
		})
		f.If(gt(n, 0), func() {
			f.Print("You can also see ")
			f.Call(r.list, g.location, 1)
			f.Line(" here.")
		})
		f.Children(g.location, o, next, func() {
			f.If(and(has(o, aContainer), has(o, aOpen), child(o, n)), func() {
				f.Print("The ")
				f.Op("print_obj", o)
				f.Print(" contains ")
				f.Call(r.list, o, 0)
				f.Line(".")
			})
		})
	}
	{
		// list prints "a X, a Y and a Z": all children (mode 0) or the
		// listable ones (mode 1).
		f := fn{r.list}
		parent, mode, o, next, n, k := f.Local("parent"), f.Local("mode"), f.Local("o"), f.Local("next"), f.Local("n"), f.Local("k")
		ok := or(zero(mode), yes(r.listable, o))
		f.Children(parent, o, next, func() { f.If(ok, func() { f.Op("inc", n) }) })
		f.Children(parent, o, next, func() {
			f.If(ok, func() {
				f.Op("inc", k)
				f.If(gt(k, 1), func() {
					f.If(eq(k, n), func() { f.Print(" and ") }, func() { f.Print(", ") })
				})
				f.Call(r.printA, o)
			})
		})
	}
	{
		f := fn{r.printA}
		o, a := f.Local("o"), f.Local("a")
		f.Op("get_prop", o, pArticle).Store(a)
		f.If(zero(a), func() { f.Print("a ") }, func() {
			f.Op("print_paddr", a)
			f.Print(" ")
		})
		f.Op("print_obj", o)
	}
	{
		f := fn{r.gotoRoom}
		room := f.Local("room")
		f.Op("insert_obj", g.player, room)
		f.Op("store", g.location, room)
		f.Call(r.floaters)
		f.Call(r.look)
	}
	{
		f := fn{r.floaters}
		o, a, n, i := f.Local("o"), f.Local("a"), f.Local("n"), f.Local("i")
		f.Op("store", o, 1)
		f.While(not(gt(o, len(g.objects))), func() {
			f.Op("get_prop_addr", o, pFoundIn).Store(a)
			f.If(not(zero(a)), func() {
				f.Op("get_prop_len", a).Store(n)
				f.Op("div", n, 2).Store(n)
				f.Op("store", i, 0)
				f.While(lt(i, n), func() {
					f.Op("loadw", a, i).Store(sp)
					f.If(eq(sp, g.location), func() { f.Op("insert_obj", o, g.location) })
					f.Op("inc", i)
				})
			})
			f.Op("inc", o)
		})
	}
	{
		// try_exit follows an exit: a room, or a routine that returns one
		// (or 0 when the way is shut, having said why).
		f := fn{r.tryExit}
		v := f.Local("v")
		f.If(lt(v, 256), func() {
			f.Call(r.gotoRoom, v)
			f.RTrue()
		})
		f.CallStore(v, v)
		f.If(not(zero(v)), func() { f.Call(r.gotoRoom, v) })
	}
	{
		f := fn{r.award}
		n := f.Local("n")
		f.Op("add", g.score, n).Store(g.score)
		f.Print("[Your score has gone up by ")
		f.Op("print_num", n)
		f.Line(" points.]")
	}
	{
		f := fn{r.die}
		f.Print("\n" + DeathText + "\n\n")
		f.Call(r.endGame)
	}
	{
		f := fn{r.win}
		f.Print("\n" + VictoryText + "\n\n")
		f.Call(r.endGame)
	}
	{
		f := fn{r.endGame}
		w := f.Local("w")
		f.Print("You scored ")
		f.Op("print_num", g.score)
		f.Print(" out of a possible 100, in ")
		f.Op("print_num", g.moves)
		f.Line(" moves.")
		f.Label("ask")
		f.Print("\n" + EndPrompt + "\n>")
		f.Op("read", g.text, g.parse)
		f.Op("loadb", g.parse, 1).Store(sp)
		f.Op("jz", sp).Branch("ask", true)
		f.Op("loadw", g.parse, 1).Store(w)
		f.If(eq(w, g.word("restart")), func() { f.Op("restart") })
		f.If(eq(w, g.word("quit"), g.word("q")), func() {
			f.Line("Goodbye.")
			f.Op("quit")
		})
		f.Jump("ask")
	}
	{
		f := fn{r.takeOne}
		o := f.Local("o")
		f.If(eq(o, g.player), func() {
			f.Line("You are always self-possessed.")
			f.RTrue()
		})
		f.If(in(o, g.player), func() {
			f.Line("You already have that.")
			f.RTrue()
		})
		f.If(has(o, aPerson), func() {
			f.Line("I don't think he would appreciate that.")
			f.RTrue()
		})
		f.If(not(has(o, aTakeable)), func() {
			f.Line("That's hardly portable.")
			f.RTrue()
		})
		f.Op("insert_obj", o, g.player)
		f.Op("set_attr", o, aMoved)
		f.Line("Taken.")
		f.If(and(has(o, aTreasure), not(has(o, aScored))), func() {
			f.Op("set_attr", o, aScored)
			f.Op("get_prop", o, pValue).Store(sp)
			f.Call(r.award, sp)
		})
	}
	{
		f := fn{r.dropOne}
		o := f.Local("o")
		f.If(not(in(o, g.player)), func() {
			f.Line("You aren't carrying that.")
			f.RTrue()
		})
		f.Op("insert_obj", o, g.location)
		f.Line("Dropped.")
	}
}
