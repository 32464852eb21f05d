package env

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lantern-if/lantern/engine/internal/testgames"
	"github.com/lantern-if/lantern/game_files/bindings"
	"github.com/lantern-if/lantern/sharedtest"
	"github.com/lantern-if/lantern/zmachine"
)

func zork(t testing.TB) (*zmachine.Story, string) { return testgames.Zork(t) }

func zorkBinding(t testing.TB) *Binding {
	t.Helper()
	bs, err := LoadBindings(bindings.FS())
	if err != nil {
		t.Fatal(err)
	}
	b := bs.For("1d4606016ea58ee038da53d994392323")
	if b.Name != "zork1" {
		t.Fatalf("Zork I binding not found, got %q", b.Name)
	}
	return b
}

// demoStory is the built-in demo and its binding.
func demoStory(t testing.TB) (*zmachine.Story, *Binding) {
	t.Helper()
	story := testgames.Demo(t)
	bs, err := LoadBindings(bindings.FS())
	if err != nil {
		t.Fatal(err)
	}
	return story, bs.For(story.Info().MD5)
}

func walkthrough(t testing.TB) []string { return testgames.ZorkWalkthrough(t) }

func startEnv(t testing.TB, opts EnvOptions) *Env {
	t.Helper()
	story, _ := zork(t)
	if opts.Binding == nil {
		opts.Binding = zorkBinding(t)
	}
	e, err := NewEnv(story, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Start(); err != nil {
		t.Fatal(err)
	}
	return e
}

func steps(t testing.TB, e *Env, cmds ...string) []Observation {
	t.Helper()
	var out []Observation
	for _, c := range cmds {
		o, err := e.Step(c)
		if err != nil {
			t.Fatalf("step %q: %v", c, err)
		}
		out = append(out, o)
	}
	return out
}

var inventoryLine = regexp.MustCompile(`^\s*(?:An? |The |Some )?(.+?)(?: \(.*\))?$`)

func TestWalkthroughGroundTruth(t *testing.T) {
	e := startEnv(t, EnvOptions{Seed: 12})
	cmds := walkthrough(t)
	prev := e.Observe().Location
	moves, matched, inventories := 0, 0, 0
	var last Observation
	for _, c := range cmds {
		o, err := e.Step(c)
		if err != nil {
			t.Fatalf("step %q: %v", c, err)
		}
		last = o
		if o.Location.ID != prev.ID && !strings.Contains(o.Text, "pitch black") {
			moves++
			if strings.HasPrefix(o.Text, o.Location.Name) {
				matched++
			} else {
				t.Logf("turn %d %q: text starts %q, location %q", o.Turn, c, firstLine(o.Text), o.Location.Name)
			}
		}
		prev = o.Location
		// The walkthrough never asks for the inventory, so ask in a probe
		// (which leaves no trace) every few turns and compare.
		if o.Turn%7 == 0 {
			inventories++
			checkInventory(t, probeInventory(t, e))
		}
	}
	if last.Score != 350 || last.Moves != 394 {
		t.Errorf("final score %d moves %d, want 350 and 394", last.Score, last.Moves)
	}
	if !last.Won || last.Ended != EndVictory {
		t.Errorf("final turn won=%v ended=%q, want victory", last.Won, last.Ended)
	}
	if moves == 0 || float64(matched) < 0.95*float64(moves) {
		t.Errorf("location names head the text on %d of %d location changes (want >= 95%%)", matched, moves)
	}
	t.Logf("%d location changes, %d headed by the location name; %d inventories checked", moves, matched, inventories)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// probeInventory asks the game for its inventory in a probe and returns
// the text with the machine's inventory at that moment.
func probeInventory(t *testing.T, e *Env) Observation {
	t.Helper()
	var o Observation
	e.m.Probe(func() error {
		e.m.SendLine("inventory")
		if _, err := e.m.Run(); err != nil {
			t.Fatalf("inventory: %v", err)
		}
		o = Observation{Turn: e.turn, Text: cleanText(strings.TrimPrefix(e.m.TakeOutput(), "\n"))}
		o.Inventory = e.inventory(uint16(e.location().ID))
		return nil
	})
	return o
}

// checkInventory compares the game's inventory listing with the machine's.
func checkInventory(t *testing.T, o Observation) {
	t.Helper()
	if strings.Contains(o.Text, "empty-handed") {
		if len(o.Inventory) != 0 {
			t.Errorf("turn %d: game says empty-handed, inventory %v", o.Turn, o.Inventory)
		}
		return
	}
	listed := map[string]bool{}
	for _, ln := range strings.Split(o.Text, "\n")[1:] {
		if strings.HasPrefix(ln, "  ") && !strings.HasPrefix(ln, "   ") {
			ln = strings.TrimSuffix(ln, " contains:")
			if m := inventoryLine.FindStringSubmatch(ln); m != nil {
				listed[strings.ToLower(m[1])] = true
			}
		}
	}
	held := map[string]bool{}
	for _, it := range o.Inventory {
		held[strings.ToLower(it.Name)] = true
	}
	for name := range listed {
		if !held[name] {
			t.Errorf("turn %d: game lists %q, machine inventory %v", o.Turn, name, o.Inventory)
		}
	}
	for name := range held {
		if !listed[name] {
			t.Errorf("turn %d: machine holds %q, game lists %v", o.Turn, name, listed)
		}
	}
}

func TestDarkCellarDeath(t *testing.T) {
	e := startEnv(t, EnvOptions{Seed: 12})
	obs := steps(t, e, "n", "e", "open window", "w", "w", "move rug", "open trap door", "d", "n", "s", "look")
	for i, o := range obs {
		wantDied := i == 8 // "n" in the dark cellar: the grue strikes
		if o.Died != wantDied {
			t.Errorf("turn %d %q: died=%v, want %v (text %q)", o.Turn, o.Command, o.Died, wantDied, firstLine(o.Text))
		}
		if o.Ended != NotEnded {
			t.Errorf("turn %d: ended %q, want none (Zork resurrects the first time)", o.Turn, o.Ended)
		}
	}
	if obs[7].Location.Name != "Cellar" {
		t.Errorf("after d: location %q, want Cellar", obs[7].Location.Name)
	}
}

func TestWorldChanges(t *testing.T) {
	e := startEnv(t, EnvOptions{Seed: 12})
	steps(t, e, "n", "e", "open window", "w", "w")
	look := steps(t, e, "look")[0]
	if look.WorldChanged || len(look.Changes) != 0 {
		t.Errorf("look: world_changed=%v changes=%v, want none", look.WorldChanged, look.Changes)
	}
	take := steps(t, e, "take lamp")[0]
	if !take.WorldChanged {
		t.Fatalf("take lamp: world_changed false (text %q)", take.Text)
	}
	var lamp *Item
	for i := range take.Inventory {
		if take.Inventory[i].Name == "brass lantern" {
			lamp = &take.Inventory[i]
		}
	}
	if lamp == nil || e.m.Parent(uint16(lamp.ID)) != uint16(e.b.Player) {
		t.Fatalf("lamp not under the player: inventory %v", take.Inventory)
	}
	found := false
	for _, c := range take.Changes {
		found = found || (c.Kind == "move" && c.Object == lamp.ID && c.To == e.b.Player)
	}
	if !found {
		t.Errorf("changes %v lack the lamp's move to the player", take.Changes)
	}
}

func TestWorldHashOrderIndependent(t *testing.T) {
	prefix := []string{"n", "e", "open window", "w", "w"}
	a := startEnv(t, EnvOptions{Seed: 12})
	steps(t, a, prefix...)
	ha := steps(t, a, "take lamp", "take sword")[1].WorldHash
	b := startEnv(t, EnvOptions{Seed: 12})
	steps(t, b, prefix...)
	hb := steps(t, b, "take sword", "take lamp")[1].WorldHash
	if ha != hb {
		t.Errorf("hash after lamp+sword %s differs from sword+lamp %s", ha, hb)
	}
	c := startEnv(t, EnvOptions{Seed: 12})
	steps(t, c, prefix...)
	if hc := steps(t, c, "take sword")[0].WorldHash; hc == ha {
		t.Errorf("a different state hashes the same: %s", hc)
	}
}

func TestValidActionsWestOfHouse(t *testing.T) {
	e := startEnv(t, EnvOptions{Seed: 12})
	groups := e.ValidActions()
	all := map[string]bool{}
	for _, g := range groups {
		for _, a := range g.Actions {
			all[a] = true
		}
	}
	if !all["open mailbox"] {
		t.Errorf("valid actions lack open mailbox: %v", groups)
	}
	if all["take house"] {
		t.Errorf("valid actions include take house")
	}
}

// TestValidExitsAgreeWithDfrotz checks, for the first 20 rooms of the
// walkthrough, that each probed exit is what dfrotz does when the direction
// is tried from a save of that room (and that no other direction leads to a
// known room).
func TestValidExitsAgreeWithDfrotz(t *testing.T) {
	story, path := zork(t)
	dfrotz := sharedtest.Dfrotz(t)
	cmds := walkthrough(t)
	dir := t.TempDir()
	e := startEnv(t, EnvOptions{Seed: 12})
	rooms := map[string]bool{e.Observe().Location.Name: true}
	type stop struct {
		prefix []string
		loc    Location
	}
	var stops []stop
	seen := map[int]bool{}
	for i, c := range cmds {
		o := steps(t, e, c)[0]
		rooms[o.Location.Name] = true
		if !seen[o.Location.ID] && !strings.Contains(o.Text, "pitch black") {
			seen[o.Location.ID] = true
			stops = append(stops, stop{prefix: cmds[:i+1], loc: o.Location})
		}
		if len(stops) == 20 {
			break
		}
	}
	run := func(input string) string {
		cmd := exec.Command(dfrotz, "-m", "-p", "-q", "-s", "12", path)
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader(input)
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("dfrotz: %v", err)
		}
		return out.String()
	}
	for k, s := range stops {
		save := fmt.Sprintf("room%02d.qzl", k)
		run(strings.Join(s.prefix, "\n") + "\nsave\n" + save + "\n")
		data, err := os.ReadFile(filepath.Join(dir, save))
		if err != nil {
			t.Fatalf("room %q: dfrotz made no save: %v", s.loc.Name, err)
		}
		env, err := NewEnv(story, EnvOptions{Seed: 12, Binding: zorkBinding(t)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := env.Start(); err != nil {
			t.Fatal(err)
		}
		if err := env.m.RestoreQuetzal(data); err != nil {
			t.Fatalf("room %q: restore dfrotz save: %v", s.loc.Name, err)
		}
		env.m.Run()
		env.m.TakeOutput()
		exits := map[string]Location{}
		for _, x := range env.ValidExits() {
			exits[x.Direction] = x.To
		}
		for _, d := range Directions() {
			out := run("restore\n" + save + "\n" + d + "\n")
			after := out[strings.LastIndex(out, "Ok.")+3:]
			first := strings.TrimSpace(strings.TrimLeft(after, "\n >"))
			first, _, _ = strings.Cut(first, "\n")
			first = strings.TrimSpace(strings.TrimPrefix(first, ">"))
			dark := strings.Contains(first, "dark place") || strings.Contains(first, "pitch black")
			if to, ok := exits[d]; ok {
				if first != to.Name && !dark {
					t.Errorf("%s, %s: probe says %q, dfrotz prints %q", s.loc.Name, d, to.Name, first)
				}
			} else if rooms[first] && first != s.loc.Name {
				t.Errorf("%s, %s: no exit probed, but dfrotz moves to %q", s.loc.Name, d, first)
			}
		}
	}
}

func TestProbingLeavesNoTrace(t *testing.T) {
	cmds := walkthrough(t)[:60]
	plain := startEnv(t, EnvOptions{Seed: 12})
	probed := startEnv(t, EnvOptions{Seed: 12})
	for i, c := range cmds {
		if i%5 == 0 {
			probed.ValidExits()
			probed.ValidActions()
		}
		a := steps(t, plain, c)[0]
		b := steps(t, probed, c)[0]
		if a.Text != b.Text || a.WorldHash != b.WorldHash {
			t.Fatalf("turn %d %q differs after probing:\n%q\n%q", i+1, c, a.Text, b.Text)
		}
	}
	if !bytes.Equal(plain.m.DynamicMemory(), probed.m.DynamicMemory()) {
		t.Fatal("dynamic memory differs after probing")
	}
	// The random generator is the same: the same random events follow.
	more := []string{"wait", "wait", "wait", "wait", "wait"}
	for _, c := range more {
		if a, b := steps(t, plain, c)[0].Text, steps(t, probed, c)[0].Text; a != b {
			t.Fatalf("after probing, %q gives %q, without %q", c, b, a)
		}
	}
}

func TestMetaCommandsStayInSaveDir(t *testing.T) {
	root := t.TempDir()
	saves := filepath.Join(root, "saves")
	e := startEnv(t, EnvOptions{Seed: 12, SaveDir: saves})
	steps(t, e, "open mailbox")
	for _, c := range []string{`save "/etc/passwd"`, "save ../escape", "restore /etc/passwd", `restore "../../x"`, "script /tmp/x", "save"} {
		o := steps(t, e, c)[0]
		if !o.Meta {
			t.Errorf("%q reached the story", c)
		}
	}
	entries, _ := os.ReadDir(root)
	if len(entries) != 1 || entries[0].Name() != "saves" {
		t.Errorf("files outside the save dir: %v", entries)
	}
	files, _ := os.ReadDir(saves)
	for _, f := range files {
		if !strings.HasPrefix(f.Name(), "slot-") {
			t.Errorf("unexpected file %q in the save dir", f.Name())
		}
	}
	// A save made by the guard restores: the mailbox is open again.
	steps(t, e, "take leaflet", "close mailbox")
	o := steps(t, e, "restore 1")[0]
	if !strings.Contains(o.Text, "Restored slot 1") {
		t.Fatalf("restore: %q", o.Text)
	}
	if look := steps(t, e, "look")[0]; !strings.Contains(look.Text, "leaflet") {
		t.Errorf("after restore the leaflet should be back in the mailbox: %q", look.Text)
	}
	if q := steps(t, e, "quit")[0]; q.Ended != EndQuit || e.m.Halted() {
		t.Errorf("quit: ended=%q halted=%v; want the engine to end the episode, not the story", q.Ended, e.m.Halted())
	}
}

func TestSanitize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"open mailbox", "open mailbox"},
		{"go north\nsave", "go north"},
		{"\x1b[31mred\x1b[0m", "[31mred[0m"},
		{"  take\tlamp  ", "takelamp"},
		{strings.Repeat("a", 300), strings.Repeat("a", MaxCommand)},
	}
	for _, tc := range tests {
		if got := Sanitize(tc.in); got != tc.want {
			t.Errorf("Sanitize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func BenchmarkValidExitsWestOfHouse(b *testing.B) {
	e := startEnv(b, EnvOptions{Seed: 12})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.ValidExits()
	}
}

// BenchmarkValidActionsWestOfHouse: the goal is 5 ms. Beside the wall
// time per op it reports the process's CPU time per op (cpu-ms/op), which a
// machine busy with other work inflates less.
func BenchmarkValidActionsWestOfHouse(b *testing.B) {
	e := startEnv(b, EnvOptions{Seed: 12})
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		e.ValidActions()
	}
	b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// cpuTime is the process's user and system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkObservationOverhead measures a step with its Observation against
// the bare machine step; the metric is the difference per step.
func BenchmarkObservationOverhead(b *testing.B) {
	cmds := []string{"open mailbox", "close mailbox"}
	e := startEnv(b, EnvOptions{Seed: 12})
	b.Run("bare", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			e.m.SendLine(cmds[i%2])
			e.m.Run()
			e.m.TakeOutput()
		}
	})
	b.Run("observed", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			e.Step(cmds[i%2])
		}
	})
}

func TestAutosaveResumesIdentically(t *testing.T) {
	cmds := walkthrough(t)[:80]
	dir := t.TempDir()
	full := startEnv(t, EnvOptions{Seed: 12})
	var want []string
	for _, c := range cmds {
		want = append(want, steps(t, full, c)[0].Text)
	}
	first := startEnv(t, EnvOptions{Seed: 12, SaveDir: dir, Autosave: true})
	steps(t, first, cmds[:40]...)
	// A new process: same story and seed, resumed from the autosave.
	story, _ := zork(t)
	second, err := NewEnv(story, EnvOptions{Seed: 12, Binding: zorkBinding(t), SaveDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := second.RestoreAutosave(); err != nil {
		t.Fatal(err)
	}
	for i, c := range cmds[40:] {
		if got := steps(t, second, c)[0].Text; got != want[40+i] {
			t.Fatalf("turn %d %q after resume:\n%q\nwant\n%q", 41+i, c, got, want[40+i])
		}
	}
}

func TestGenericPathWithoutBinding(t *testing.T) {
	e := startEnv(t, EnvOptions{Seed: 12, Binding: Generic()})
	obs := steps(t, e, "n", "e", "open window", "w", "w", "take lamp")
	last := obs[len(obs)-1]
	if last.Location.Name != "Living Room" || last.Moves != 6 {
		t.Errorf("generic path: location %q moves %d, want Living Room and 6", last.Location.Name, last.Moves)
	}
	if len(last.Inventory) != 1 || last.Inventory[0].Name != "brass lantern" {
		t.Errorf("generic path: inventory %v, want the brass lantern", last.Inventory)
	}
}

func TestLoadBindingsErrors(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"bad.toml", "md5 = [", "bad.toml:1"},
		{"nomd5.toml", `name = "x"`, "md5"},
		{"unknown.toml", "md5 = \"0123456789abcdef0123456789abcdef\"\nplayr = 4\n", "playr"},
	}
	for _, tc := range tests {
		_, err := ParseBinding(tc.name, []byte(tc.body))
		if !errors.Is(err, ErrBinding) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want ErrBinding mentioning %q", tc.name, err, tc.want)
		}
	}
}

// TestAffordancesAreProbedOncePerState: the exits and valid actions are
// kept while the world is as they were found, and found again after a
// step changes it.
func TestAffordancesAreProbedOncePerState(t *testing.T) {
	e := startEnv(t, EnvOptions{Seed: 12})
	exits, actions := e.ExitsHere(), e.ValidActionSet()
	if exits["north"] == 0 || exits["east"] != 0 || !actions["open mailbox"] {
		t.Fatalf("West of House: exits %v, actions %v", exits, actions)
	}
	if !sameMap(exits, e.ExitsHere()) || !sameMap(actions, e.ValidActionSet()) {
		t.Error("asked again in the same state, the probes ran again")
	}
	steps(t, e, "open mailbox")
	if after := e.ValidActionSet(); sameMap(actions, after) || after["open mailbox"] || !after["take leaflet"] {
		t.Errorf("after open mailbox: %v", after)
	}
	if !e.KnowsVerb("open") || !e.KnowsVerb("examine") || e.KnowsVerb("mailbox") {
		t.Error("KnowsVerb: open and examine are verbs, mailbox is not")
	}
}

func sameMap[V any](a, b map[string]V) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// TestTryTellsWhatAnActionWouldDo: changes, moves and deaths, found by a
// probe that leaves no trace.
func TestTryTellsWhatAnActionWouldDo(t *testing.T) {
	story, b := demoStory(t)
	e, err := NewEnv(story, EnvOptions{Binding: b})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Start(); err != nil {
		t.Fatal(err)
	}
	steps(t, e, "n", "take lunch", "e", "e", "n", "n", "give lunch to troll", "look")
	before := e.Observe()
	tests := []struct {
		action               string
		changes, moves, dies bool
	}{
		{"north", false, false, true}, // the troll, full of lunch, kills
		{"south", true, true, false},
		{"wait", false, false, false},
	}
	for _, tt := range tests {
		got := e.Try(tt.action)
		if !got.Played || got.Changes != tt.changes || got.Moves != tt.moves || got.Dies != tt.dies {
			t.Errorf("Try(%q) = %+v, want changes %v, moves %v, dies %v", tt.action, got, tt.changes, tt.moves, tt.dies)
		}
	}
	if after := e.Observe(); after.WorldHash != before.WorldHash || after.Location != before.Location || after.Moves != before.Moves {
		t.Errorf("trying left a trace: %+v, was %+v", after, before)
	}
}
