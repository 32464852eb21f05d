package env

import (
	"errors"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/game_files/bindings"
)

func suiteBindings(t *testing.T) Bindings {
	t.Helper()
	bs, err := LoadBindings(bindings.FS())
	if err != nil {
		t.Fatal(err)
	}
	return bs
}

// jerichoMD5s are the story files of Jericho's suite (jericho/defines.py).
var jerichoMD5s = map[string]string{
	"4c5067169b834d247a30bb08d1039896": "905", "a61400439aa76f8faba3b8f01edd4a72": "acorncourt",
	"a42545bd17330ae5e6fed02270ccfb4a": "adventureland", "ee2242e155fd8910921b0f8e04019a3a": "advent",
	"064272be87de7106192b6fb743c4dfc4": "afflicted", "c043df8624e0e1e9fda92f1a74b6e402": "anchorhead",
	"9ba48c72d96ab3e7956a8570b12d34d6": "awaken", "f2cb8f94a7e8df3b850a758da26fa387": "balances",
	"5d54e326815b0ed3aff8efb8ff02ef2f": "ballyhoo", "f06a42a29a5a4e6aa70958c9ae4c37cd": "curses",
	"216eeeba1c8017a77343dc8482f6f185": "cutthroat", "5e56a6e5cdeecded434a8fd8012fc2c6": "deephome",
	"822655c9be83e292e06d3d3b1d6a9734": "detective", "96d314997e5d3a5a793c83845977d44d": "dragon",
	"ad3cdea88d81033fe29167688bd98c31": "enchanter", "4c48ba2c5523d78c5f7f9b7809d16b1d": "enter",
	"f275ddf32ce8a9e744d53c3b99c5a658": "gold", "6666389f60e0c8e4ceb08242a263bb52": "hhgg",
	"1ea91a064941a3f612b20833f0a47df7": "hollywood", "253b02c8012710577085b9fd3a155cb7": "huntdark",
	"425fa66869309d7ed7f8ef04a492fbb7": "infidel", "84d3ce7ccfafb873736490811a0cc78c": "inhumane",
	"1eef9c0fa009ca4adf4872cfc5249d45": "jewel", "ec55791be814db3663ad1aec0d6b7690": "karn",
	"daf57133d346442b983bd333fb586cc4": "library", "31a0c1e360dce94aa5bece5240691d17": "loose",
	"aaf0b90fbb31717481c02832bf412070": "lostpig", "646a63307f77dcdcd011f330277ae262": "ludicorp",
	"5f42ff092a2f30471ae98150ef4da2e1": "lurking", "bf75b9651cff0e2d04302f19c443588e": "moonlit",
	"570179d4f21b2f600862dbffbb5afc3e": "murdac", "72125f159cccd581786ac16a2828d4e3": "night",
	"80ea198bca425b6d819c74bfa854236e": "omniquest", "d221daa82708c4e54447f1a884c239ef": "partyfoul",
	"f24c6863468823b744e910ccfe997c6d": "pentari", "6487dc814b280f5603c53155de378d27": "planetfall",
	"6ae4fd54b7e55675ec7e54ec4dd26462": "plundered", "be6d5fa9587a079782b64739e629461f": "reverb",
	"ee339dbdbb0792f67e20bd71bafe0ea5": "seastalker", "53bf7a60017e06998cc1542cf35f76fa": "sherbet",
	"35240654d83f9e7073973d338f9657b8": "sherlock", "0ff228d12d7cb470dc1a8e9a5151769b": "snacktime",
	"20f1468a058d0a6de016ae70022e651c": "sorcerer", "7a92ce19a39bedd970d0f1e296981f71": "spellbrkr",
	"808039c4e9554bdd15d7793539b3bd97": "spirit", "22a0ddac6be15540616c10f1007197f3": "temple",
	"33dcc5085acb290d1817e07653c13480": "theatre", "3bf1a444a1fc2057130ecb9806117233": "trinity",
	"fc65ad8d4588da92fd39871f6f7463db": "tryst", "c632204be3849d6c5bb6f4eb5aca3cc0": "weapon",
	"87ed53d854f7e57c36106fca3b9cf5a6": "wishbringer", "5b10162a7a134e7b4c381ecedfb4bc44": "yomomma",
	"631cc926b4251f5a5f646d3a6bdac8c6": "zenon", "b732a93a6244ddd92a9b9a3e3a46c687": "zork1",
	"5bcd91ee055e9bd42812617571be227b": "zork2", "ffda9ee2d428fa2fa8e75a1914ff6959": "zork3",
	"d8e1578470cbc676e013e03d72c93141": "ztuu",
}

// TestSuiteBindingsComplete: every game of Jericho's suite has a binding
// with the facts the ground truth needs.
func TestSuiteBindingsComplete(t *testing.T) {
	bs := suiteBindings(t)
	if len(jerichoMD5s) != 57 {
		t.Fatalf("suite table has %d games, want 57", len(jerichoMD5s))
	}
	for md5, name := range jerichoMD5s {
		b := bs.For(md5)
		switch {
		case b.IsGeneric():
			t.Errorf("%s (%s): no binding", name, md5)
			continue
		case b.Name != name:
			t.Errorf("%s: binding named %q", md5, b.Name)
		}
		if b.MaxScore <= 0 || b.Player <= 0 || b.WorldObjects <= 0 {
			t.Errorf("%s: max score %d, player %d, world objects %d", name, b.MaxScore, b.Player, b.WorldObjects)
		}
		if len(b.VictoryTexts) == 0 {
			t.Errorf("%s: no victory text", name)
		}
		if b.ScoreFrom == "" && b.ScoreAddr == 0 {
			t.Errorf("%s: no score address", name)
		}
		if b.MovesAddr == 0 {
			t.Errorf("%s: no moves address", name)
		}
		if b.Location != "" && b.Location != "global" && b.Player == 0 {
			t.Errorf("%s: location from the player without a player", name)
		}
	}
}

// TestZorkR88Binding checks Zork I release 88 from the facts alone (its
// file is not shared): the binding is found by md5 and reads the location
// from global 0 (the status line's room: West of House is 180 there),
// score and moves from the words Jericho names, and victory as Jericho
// does.
func TestZorkR88Binding(t *testing.T) {
	b := suiteBindings(t).For("B732A93A6244DDD92A9B9A3E3A46C687")
	if b.Name != "zork1" || b.Release != 88 || b.Serial != "840726" {
		t.Fatalf("binding %q release %d serial %q, want zork1 88 840726", b.Name, b.Release, b.Serial)
	}
	if b.LocationGlob == nil || *b.LocationGlob != 0 || (b.Location != "" && b.Location != "global") {
		t.Errorf("location %q global %v, want global 0", b.Location, b.LocationGlob)
	}
	if b.ScoreAddr != 8819 || b.MovesAddr != 8821 || b.ScoreSize == 1 || b.MovesSize == 1 {
		t.Errorf("score at %d (size %d), moves at %d (size %d), want words at 8819 and 8821", b.ScoreAddr, b.ScoreSize, b.MovesAddr, b.MovesSize)
	}
	if b.Player != 4 || b.MaxScore != 350 || b.WorldObjects != 250 {
		t.Errorf("player %d max %d objects %d, want 4, 350, 250", b.Player, b.MaxScore, b.WorldObjects)
	}
	if len(b.VictoryTexts) != 1 || b.VictoryTexts[0] != "Inside the Barrow" {
		t.Errorf("victory texts %q", b.VictoryTexts)
	}
	if len(b.DeathTexts) != 1 || b.DeathTexts[0] != "****  You have died  ****" {
		t.Errorf("death texts %q", b.DeathTexts)
	}
	if !contains(b.IgnoreMoved, 114) || !contains(b.Detach, 114) || !b.ignoresDiff(114, 5, true) || !b.ignoresDiff(4, 12, true) {
		t.Errorf("the thief (114) and the player's attribute 12 are not ignored")
	}
	if !b.ignoresDiff(217, 1, false) || b.ignoresDiff(217, 1, true) {
		t.Errorf("the troll's (217) attribute 1 clear should be ignored, its set not")
	}
	// r119 stays a different binding with its own numbers.
	if r119 := suiteBindings(t).For("1d4606016ea58ee038da53d994392323"); r119.Player != 44 || r119.Release != 119 {
		t.Errorf("release 119: player %d release %d", r119.Player, r119.Release)
	}
}

func TestBindingSchemaErrors(t *testing.T) {
	const md5 = "md5 = \"0123456789abcdef0123456789abcdef\"\n"
	tests := []struct{ name, body, want string }{
		{"loc.toml", md5 + "location = \"attic\"\n", "location"},
		{"locplayer.toml", md5 + "location = \"player_room\"\n", "player"},
		{"locname.toml", md5 + "location_name = \"upper\"\n", "location_name"},
		{"rooms.toml", md5 + "rooms_container = true\n", "rooms_container"},
		{"size.toml", md5 + "score_addr = 10\nscore_size = 4\n", "size"},
		{"from.toml", md5 + "score_from = \"guess\"\n", "score_from"},
		{"re.toml", md5 + "score_from = \"status\"\nscore_text = 'Rating'\n", "score_text"},
		{"except.toml", md5 + "[[clear_for_hash]]\nobject = 0\nattrs = [1]\nexcept = \"x\"\n", "except.toml"},
	}
	for _, tc := range tests {
		_, err := ParseBinding(tc.name, []byte(tc.body))
		if !errors.Is(err, ErrBinding) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want ErrBinding mentioning %q", tc.name, err, tc.want)
		}
	}
}

func TestAttrRuleEveryObject(t *testing.T) {
	b, err := ParseBinding("x.toml", []byte("md5 = \"0123456789abcdef0123456789abcdef\"\n[[ignore_attr_diff]]\nobject = 0\nattrs = [25]\nexcept = [7]\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		obj  uint16
		attr uint8
		want bool
	}{{1, 25, true}, {300, 25, true}, {7, 25, false}, {1, 24, false}} {
		if got := b.ignoresDiff(tc.obj, tc.attr, true); got != tc.want {
			t.Errorf("object %d attr %d: ignored %v, want %v", tc.obj, tc.attr, got, tc.want)
		}
	}
}

// TestProvenanceZork: the bound story says bound, the generic path on a
// v3 story infers from the status-line globals.
func TestProvenanceZork(t *testing.T) {
	bound := startEnv(t, EnvOptions{Seed: 12}).Observe().Facts
	want := Facts{Location: Bound, Score: Bound, Moves: Bound, Player: Bound, Victory: Bound, Death: Bound}
	if bound != want {
		t.Errorf("bound facts %+v, want %+v", bound, want)
	}
	generic := startEnv(t, EnvOptions{Seed: 12, Binding: Generic()}).Observe().Facts
	want = Facts{Location: Inferred, Score: Inferred, Moves: Inferred, Player: Inferred, Victory: Inferred, Death: Inferred}
	if generic != want {
		t.Errorf("generic facts %+v, want %+v", generic, want)
	}
}
