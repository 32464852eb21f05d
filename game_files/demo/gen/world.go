package gen

import (
	"strconv"

	"github.com/lantern-if/lantern/zmachine/zasm"
)

// The world: fifteen locations, their scenery and the things to find. The
// map (exits go both ways):
//
//	Up the Apple Tree
//	   |u
//	Orchard ------e------ Behind the Cottage ---e--- Cliff Path
//	   |s                   |in (window)               |n
//	Muddy Lane            Kitchen ---d--- Cellar     Troll Bridge
//	   |s                   |w   (trapdoor)  (dark)    |n (toll)
//	By the Old Well       Parlour                    Foot of the Lighthouse
//	   |d                   |n                         |u
//	Bottom of the Well    Hallway                    Lamp Room
//	                        |n (stone door)
//	                      Study

type rooms struct {
	lane, orchard, treetop, garden, kitchen, parlour, hallway, study, cellar,
	well, wellBottom, cliff, bridge, lighthouse, lampRoom *zasm.Object
}

type things struct {
	window, trapdoor, stoneDoor, frontDoor, tree, rope, troll, greatLamp,
	bridgeObj, lighthouseObj *zasm.Object
	lunch, apple, lantern, rustyKey, brassKey, jar, pearl, locket, logbook,
	coin, bottle *zasm.Object
}

// routines are made before the world (objects refer to them) and written
// in code().
type routines struct {
	main, parse, perform, resolve, inScope, hasName, isLit, unknownWord,
	before, describe, look, listable, list, printA, gotoRoom, floaters,
	tryExit, award, die, win, endGame, confirm, takeOne, dropOne *zasm.Routine

	verbs [numVerbs]*zasm.Routine

	windowIn, windowOut, trapdoorDown, trapdoorUp, doorNorth, doorSouth,
	bridgeNorth *zasm.Routine

	windowBefore, windowDesc, trapdoorBefore, trapdoorDesc, doorBefore,
	doorDesc, trollBefore, trollDesc, lampBefore, treeBefore, ropeBefore,
	bridgeBefore, lighthouseBefore, lanternDesc, jarDesc, kitchenDesc,
	hallwayDesc, bridgeDesc, lunchBefore *zasm.Routine
}

func (g *game) routines() {
	b := g.b
	r := &g.r
	r.main = b.Routine("main")
	r.parse = b.Routine("parse", "i", "n", "w", "wc", "start", "k")
	r.perform = b.Routine("perform", "f", "r")
	r.resolve = b.Routine("resolve", "start", "end", "o", "count", "found", "i", "ok", "k")
	r.inScope = b.Routine("in_scope", "o", "p")
	r.hasName = b.Routine("has_name", "o", "w", "a", "n", "i")
	r.isLit = b.Routine("is_lit", "o", "next")
	r.unknownWord = b.Routine("unknown_word", "i", "e", "len", "pos", "k")
	r.before = b.Routine("before", "o", "a")
	r.describe = b.Routine("describe", "o", "a")
	r.look = b.Routine("look", "o", "next", "n")
	r.listable = b.Routine("listable", "o")
	r.list = b.Routine("list", "parent", "mode", "o", "next", "n", "k")
	r.printA = b.Routine("print_a", "o", "a")
	r.gotoRoom = b.Routine("goto", "room")
	r.floaters = b.Routine("floaters", "o", "a", "n", "i")
	r.tryExit = b.Routine("try_exit", "v")
	r.award = b.Routine("award", "n")
	r.die = b.Routine("die")
	r.win = b.Routine("win")
	r.endGame = b.Routine("end_game", "w")
	r.confirm = b.Routine("confirm", "w")
	r.takeOne = b.Routine("take_one", "o")
	r.dropOne = b.Routine("drop_one", "o")
	names := map[int]string{vLook: "look", vExamine: "examine", vInventory: "inventory", vTake: "take", vDrop: "drop",
		vOpen: "open", vClose: "close", vUnlock: "unlock", vLock: "lock", vGive: "give", vLight: "light",
		vExtinguish: "extinguish", vRead: "read", vScore: "score", vWait: "wait", vQuit: "quit", vRestart: "restart",
		vGo: "go", vEnter: "enter", vClimb: "climb", vHelp: "help", vAttack: "attack", vEat: "eat"}
	for v := 1; v < numVerbs; v++ {
		r.verbs[v] = b.Routine("verb_"+names[v], "o", "next", "k", "n2")
	}
	exit := func(name string) *zasm.Routine { return b.Routine(name, "k") }
	r.windowIn, r.windowOut = exit("window_in"), exit("window_out")
	r.trapdoorDown, r.trapdoorUp = exit("trapdoor_down"), exit("trapdoor_up")
	r.doorNorth, r.doorSouth = exit("door_north"), exit("door_south")
	r.bridgeNorth = exit("bridge_north")
	act := func(name string) *zasm.Routine { return b.Routine(name, "k") }
	r.windowBefore, r.windowDesc = act("window_before"), act("window_desc")
	r.trapdoorBefore, r.trapdoorDesc = act("trapdoor_before"), act("trapdoor_desc")
	r.doorBefore, r.doorDesc = act("door_before"), act("door_desc")
	r.trollBefore, r.trollDesc = act("troll_before"), act("troll_desc")
	r.lampBefore, r.treeBefore, r.ropeBefore = act("lamp_before"), act("tree_before"), act("rope_before")
	r.bridgeBefore, r.lighthouseBefore = act("bridge_before"), act("lighthouse_before")
	r.lanternDesc, r.jarDesc = act("lantern_desc"), act("jar_desc")
	r.kitchenDesc, r.hallwayDesc, r.bridgeDesc = act("kitchen_desc"), act("hallway_desc"), act("bridge_desc")
	r.lunchBefore = act("lunch_before")
}

// object adds an object with name words.
func (g *game) object(name string, parent *zasm.Object, names ...string) *zasm.Object {
	o := g.b.Object(name, parent)
	g.objects = append(g.objects, o)
	if len(names) > 0 {
		ws := make([]any, len(names))
		for i, n := range names {
			ws[i] = g.word(n)
		}
		o.Prop(pName, ws...)
	}
	return o
}

// room adds a lit location with a description.
func (g *game) room(name, desc string) *zasm.Object {
	o := g.object(name, nil).Attr(aRoom, aLight)
	if desc != "" {
		o.Prop(pDesc, g.b.String(desc))
	}
	return o
}

// scenery adds a fixed, unlisted object described by desc.
func (g *game) scenery(name string, where *zasm.Object, desc string, names ...string) *zasm.Object {
	o := g.object(name, where, names...).Attr(aScenery)
	if desc != "" {
		o.Prop(pDesc, g.b.String(desc))
	}
	return o
}

// item adds a portable object.
func (g *game) item(name string, where *zasm.Object, initial, desc string, names ...string) *zasm.Object {
	o := g.object(name, where, names...).Attr(aTakeable)
	if initial != "" {
		o.Prop(pInitial, g.b.String(initial))
	}
	if desc != "" {
		o.Prop(pDesc, g.b.String(desc))
	}
	return o
}

// floating makes scenery appear in several rooms (it moves to the
// player's room on arrival); it starts in the first.
func floating(o *zasm.Object, rooms ...*zasm.Object) {
	vals := make([]any, len(rooms))
	for i, r := range rooms {
		vals[i] = r
	}
	o.Prop(pFoundIn, vals...)
}

// exit sets an exit of a room: a room or a routine.
func exit(from *zasm.Object, dir int, to any) { from.Prop(dir, to) }

// refuse is an exit that only prints why not.
func (g *game) refuse(msg string) *zasm.Routine {
	if r, ok := g.blocked[msg]; ok {
		return r
	}
	r := fn{g.b.Routine("blocked_" + strconv.Itoa(len(g.blocked)))}
	r.Line(msg)
	r.Ret(0)
	g.blocked[msg] = r.Routine
	return r.Routine
}

func (g *game) world() {
	g.routines()
	r := &g.r
	s := g.b.String
	rm := &g.rooms
	t := &g.things

	// Object 1: the player, then the stand-in for "all".
	g.player = g.object("yourself", nil, "me", "myself", "yourself", "self")
	g.player.Prop(pDesc, s("As good-looking as ever, if a little muddy."))
	g.everyObj = g.object("everything", nil)

	rm.lane = g.room("Muddy Lane", "A muddy lane ends here at a crooked little cottage to the east. Its front door is boarded shut. An orchard rustles to the north, and a path wanders south towards an old well.")
	rm.orchard = g.room("Orchard", "Gnarled apple trees lean together here, gossiping in the breeze. The biggest one looks easy to climb. The lane is to the south, and a gap in the hedge leads east, behind the cottage.")
	rm.treetop = g.room("Up the Apple Tree", "You cling to a swaying branch near the top of the tree. Over the cottage roof you can see the dark sea and, on a far headland, a lighthouse with no light in it.")
	rm.garden = g.room("Behind the Cottage", "A weedy garden behind the cottage. A small window is set in the back wall at about waist height. The orchard lies west, and a path runs east along the cliff top.")
	rm.kitchen = g.room("Kitchen", "")
	rm.kitchen.Prop(pDescFn, r.kitchenDesc)
	rm.parlour = g.room("Parlour", "Faded armchairs sulk around a cold fireplace. On the mantelpiece, a row of china dogs glares at you. The kitchen is east, and a hallway leads north. The front door, to the west, is boarded up on this side too.")
	rm.hallway = g.room("Hallway", "")
	rm.hallway.Prop(pDescFn, r.hallwayDesc)
	rm.study = g.room("Study", "A cramped study lined with books about lighthouses, trolls and, for some reason, cheese. A desk sits under a tiny window. The stone door leads south.")
	rm.cellar = g.object("Cellar", nil).Attr(aRoom) // dark
	rm.cellar.Prop(pDesc, s("A damp cellar. Shelves of forgotten jam jars line the walls, and rickety stairs lead up to the kitchen."))
	rm.well = g.room("By the Old Well", "A mossy stone well squats here, with a frayed rope dangling into its depths. The lane is back to the north.")
	rm.wellBottom = g.room("Bottom of the Well", "You stand ankle-deep in cold water at the bottom of the well. A small circle of sky hangs far above, and the rope leads up.")
	rm.cliff = g.room("Cliff Path", "A windy path along the cliff top. Far below, the sea chews on the rocks. The path runs west to the cottage garden and north towards a rope bridge.")
	rm.bridge = g.room("Troll Bridge", "")
	rm.bridge.Prop(pDescFn, r.bridgeDesc)
	rm.lighthouse = g.room("Foot of the Lighthouse", "A whitewashed lighthouse towers over you on the headland. A spiral stair climbs up inside. The rope bridge leads back south.")
	rm.lampRoom = g.room("Lamp Room", "The lamp room at the very top of the lighthouse. A great lamp, with a wick as thick as your arm, waits in the middle. Through the windows you can see the dark sea and, far out, the lights of a ship heading straight for the rocks.")

	// Exits.
	boarded := g.refuse("The front door is boarded up tighter than a miser's purse.")
	exit(rm.lane, pN, rm.orchard)
	exit(rm.lane, pS, rm.well)
	exit(rm.lane, pE, boarded)
	exit(rm.lane, pIn, boarded)
	exit(rm.orchard, pS, rm.lane)
	exit(rm.orchard, pE, rm.garden)
	exit(rm.orchard, pU, rm.treetop)
	exit(rm.treetop, pD, rm.orchard)
	exit(rm.garden, pW, rm.orchard)
	exit(rm.garden, pE, rm.cliff)
	exit(rm.garden, pIn, r.windowIn)
	exit(rm.kitchen, pE, r.windowOut)
	exit(rm.kitchen, pOut, r.windowOut)
	exit(rm.kitchen, pW, rm.parlour)
	exit(rm.kitchen, pD, r.trapdoorDown)
	exit(rm.parlour, pE, rm.kitchen)
	exit(rm.parlour, pN, rm.hallway)
	exit(rm.parlour, pW, g.refuse("The front door is boarded up on this side too. Somebody was thorough."))
	exit(rm.hallway, pS, rm.parlour)
	exit(rm.hallway, pN, r.doorNorth)
	exit(rm.study, pS, r.doorSouth)
	exit(rm.study, pOut, r.doorSouth)
	exit(rm.cellar, pU, r.trapdoorUp)
	exit(rm.well, pN, rm.lane)
	exit(rm.well, pD, rm.wellBottom)
	exit(rm.wellBottom, pU, rm.well)
	exit(rm.cliff, pW, rm.garden)
	exit(rm.cliff, pN, rm.bridge)
	exit(rm.cliff, pD, g.refuse("Straight down is the sea. You'd get there quickly, but only once."))
	exit(rm.bridge, pS, rm.cliff)
	exit(rm.bridge, pN, r.bridgeNorth)
	exit(rm.lighthouse, pS, rm.bridge)
	exit(rm.lighthouse, pU, rm.lampRoom)
	exit(rm.lighthouse, pIn, rm.lampRoom)
	exit(rm.lampRoom, pD, rm.lighthouse)
	exit(rm.lampRoom, pOut, rm.lighthouse)

	// Scenery.
	cottage := g.scenery("cottage", rm.lane, "Crooked walls, a sagging roof and a chimney that has given up. There must be another way in.", "cottage", "house", "crooked", "roof")
	floating(cottage, rm.lane, rm.garden)
	t.frontDoor = g.scenery("front door", rm.lane, "Planks are nailed across it every which way. Somebody really didn't want visitors.", "front", "door", "planks", "boards")
	floating(t.frontDoor, rm.lane, rm.parlour)
	t.tree = g.scenery("apple tree", rm.orchard, "A big old tree. The lowest branch is invitingly low.", "tree", "trees", "branch", "branches")
	t.tree.Prop(pBefore, r.treeBefore)
	floating(t.tree, rm.orchard, rm.treetop)
	t.window = g.scenery("window", rm.garden, "", "window", "small", "gap")
	t.window.Attr(aOpenable).Prop(pBefore, r.windowBefore).Prop(pDescFn, r.windowDesc)
	floating(t.window, rm.garden, rm.kitchen)
	g.scenery("table", rm.kitchen, "Scratched, sticky and smelling faintly of marmalade.", "table", "wooden")
	t.trapdoor = g.scenery("trapdoor", rm.kitchen, "", "trapdoor", "trap", "hatch", "door")
	t.trapdoor.Attr(aOpenable).Prop(pBefore, r.trapdoorBefore).Prop(pDescFn, r.trapdoorDesc)
	floating(t.trapdoor, rm.kitchen, rm.cellar)
	g.scenery("china dogs", rm.parlour, "They have the look of dogs who have seen things.", "dogs", "dog", "china").Prop(pArticle, s("some"))
	g.scenery("armchairs", rm.parlour, "Too sulky to sit in.", "armchairs", "armchair", "chair", "chairs").Prop(pArticle, s("some"))
	g.scenery("fireplace", rm.parlour, "Cold ashes and one forgotten sock.", "fireplace", "fire", "mantelpiece", "ashes")
	t.stoneDoor = g.scenery("stone door", rm.hallway, "", "door", "stone", "grey", "keyhole")
	t.stoneDoor.Attr(aOpenable, aLocked).Prop(pBefore, r.doorBefore).Prop(pDescFn, r.doorDesc)
	floating(t.stoneDoor, rm.hallway, rm.study)
	g.scenery("desk", rm.study, "Its drawers hold nothing but dust and a single cheese rind.", "desk", "drawers")
	g.scenery("books", rm.study, "Titles include 'Lamps and You', 'Trolls: A Field Guide' and 'Five Hundred Cheeses'.", "books", "book", "titles").Prop(pArticle, s("some"))
	g.scenery("shelves", rm.cellar, "Jars of jam older than you are. Best left alone.", "shelves", "shelf", "jars").Prop(pArticle, s("some"))
	g.scenery("well", rm.well, "You peer in. Far below, something glints.", "well", "mossy")
	t.rope = g.scenery("rope", rm.well, "Frayed, but it looks strong enough. Probably.", "rope", "frayed")
	t.rope.Prop(pBefore, r.ropeBefore)
	floating(t.rope, rm.well, rm.wellBottom)
	g.scenery("water", rm.wellBottom, "Cold enough to make your toes complain.", "water")
	sea := g.scenery("sea", rm.treetop, "Grey, cold and restless. It looks hungry.", "sea", "rocks", "waves", "ocean")
	floating(sea, rm.treetop, rm.cliff, rm.bridge, rm.lampRoom)
	g.scenery("gorge", rm.bridge, "A long, long way down. You'd rather not find out exactly how long.", "gorge", "chasm")
	t.bridgeObj = g.scenery("rope bridge", rm.bridge, "Planks, rope and hope, in roughly equal measure.", "bridge", "rickety")
	t.bridgeObj.Prop(pBefore, r.bridgeBefore)
	floating(t.bridgeObj, rm.bridge, rm.lighthouse, rm.cliff)
	t.troll = g.scenery("troll", rm.bridge, "", "troll", "large", "green")
	t.troll.Attr(aPerson).Prop(pDescFn, r.trollDesc).Prop(pBefore, r.trollBefore)
	t.lighthouseObj = g.scenery("lighthouse", rm.lighthouse, "Tall, white and, right now, useless.", "lighthouse", "tower", "stair", "stairs")
	t.lighthouseObj.Prop(pBefore, r.lighthouseBefore)
	g.scenery("distant ship", rm.lampRoom, "A little ship, lights bobbing, sailing cheerfully towards the rocks.", "ship", "distant", "lights")
	t.greatLamp = g.scenery("great lamp", rm.lampRoom, "A huge brass lamp inside a ring of lenses. The wick is dry and ready. It only needs a flame.", "lamp", "great", "wick", "lenses")
	t.greatLamp.Prop(pBefore, r.lampBefore)

	// Things to carry.
	t.lunch = g.item("packed lunch", rm.orchard, "Someone has left a packed lunch in the grass, wrapped in a checked cloth.",
		"A cheese sandwich, a pickle and a slightly squashed cake. Whoever packed it will be very cross.", "lunch", "packed", "sandwich", "cloth")
	t.lunch.Prop(pBefore, r.lunchBefore)
	t.apple = g.item("golden apple", rm.treetop, "A golden apple hangs from a twig, gleaming smugly.",
		"Solid gold, which explains why nothing has eaten it.", "apple", "golden", "gold")
	t.apple.Attr(aTreasure).Prop(pValue, 10)
	t.lantern = g.item("tin lantern", rm.kitchen, "A tin lantern sits on the table.", "", "lantern", "tin", "candle")
	t.lantern.Attr(aLightable).Prop(pDescFn, r.lanternDesc)
	t.rustyKey = g.item("rusty key", rm.parlour, "A rusty key lies on the mantelpiece between two of the dogs.",
		"An old iron key, more rust than key.", "key", "rusty", "iron")
	t.locket = g.item("silver locket", rm.study, "A silver locket lies on the desk.",
		"Inside is a tiny portrait of a stern woman holding a telescope.", "locket", "silver")
	t.locket.Attr(aTreasure).Prop(pValue, 15)
	t.logbook = g.item("logbook", rm.study, "The keeper's logbook lies open beside it.",
		"A battered logbook, full of tidy handwriting.", "logbook", "log", "diary")
	t.logbook.Prop(pText, s("The keeper's log, in tidy handwriting:\n\n  Monday: Lit the lamp.\n  Tuesday: Lit the lamp.\n  Wednesday: Troll on the bridge again. His toll is one silver coin. Do NOT feed him: a fed troll is a frisky troll.\n  Thursday: Dropped my coin down the well. Drat.\n  Friday: No coin, no crossing, no lamp. Somebody else will have to do it."))
	t.brassKey = g.item("brass key", rm.cellar, "A brass key glints on the bottom shelf.",
		"A bright brass key with neat, sharp teeth.", "key", "brass", "bright")
	t.jar = g.item("jam jar", rm.cellar, "One jam jar on the bottom shelf looks heavier than the others.", "", "jar", "jam", "dusty", "lid")
	t.jar.Attr(aContainer, aOpenable).Prop(pDescFn, r.jarDesc)
	t.pearl = g.item("pearl", t.jar, "", "A pearl the size of a gooseberry. Whoever pickled it had odd ideas about jam.", "pearl")
	t.pearl.Attr(aTreasure).Prop(pValue, 15)
	t.coin = g.item("silver coin", rm.wellBottom, "A silver coin winks at you from the water.",
		"One shiny silver coin. Exactly the right size for a troll's toll.", "coin", "silver", "shiny")
	t.bottle = g.item("ship in a bottle", rm.lighthouse, "A ship in a bottle sits on the doorstep, sailing nowhere.",
		"A tiny three-master with all sails set, going nowhere in particular.", "ship", "bottle")
	t.bottle.Attr(aTreasure).Prop(pValue, 10)
}
