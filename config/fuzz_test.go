package config

import (
	"errors"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pelletier/go-toml/v2"
)

// FuzzParse feeds arbitrary bytes to the loader as a lantern.toml. It never
// panics and always returns a configuration. An invalid file gives an
// *Error whose every problem names the file. A file accepted as valid had
// every one of its keys applied (nothing dropped silently), and its values,
// written out as TOML and loaded again, are valid and unchanged.
func FuzzParse(f *testing.F) {
	sample, err := os.ReadFile("../lantern.sample.toml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(sample)
	for _, s := range []string{
		"",
		"# only a comment\n",
		"work_dir = \"data\"\nstory = \"~/z/zork1.z3\"\ntheme = \"dark\"\n",
		"theme = \"themes/mine.toml\"\n",
		"[loop]\nmax_turns_per_episode = 0\nseed = 7\ncritic_rejection_threshold = 1\n",
		"[loop]\nmemory_history_window = 11\nobjective_refinement_interval = 1\n",
		"[roles.agent]\nmodel = \"qwen3:4b\"\ntimeout = \"90s\"\nthink = \"on\"\nkeep_alive = \"5m\"\n",
		"[roles.critic]\ntemperature = 1\ntop_p = 0.5\nnum_ctx = 1024\n",
		"[keys]\nstep = \".\"\npause = \"p\"\n",
		"[keys]\nstep = \"space\"\n",
		"[keys]\nNot_An_Action = \"x\"\nfoo = \"\"\nbar = \"ctrl+alt+shift+super+hyper+x\"\n",
		"[ollama]\nhost = \"http://gpu-box:11434\"\n",
		"[ollama]\nhost = \"[::1]:99999\"\n",
		"loop.seed = 3\n\"loop.stuck_turns\" = 4\n",
		"[loop]\nseed = 1\n[loop]\nseed = 2\n",
		"ollama = { host = \"a:1\" }\nmanagers = { research_rounds = 11 }\n",
		"[[roles]]\nmodel = \"x\"\n",
		"[roles.nobody]\nmodel = \"x\"\n",
		"[loop]\nseed = 1e3\nstuck_turns = 9999999999\n",
		"[loop]\ncritic_rejection_threshold = nan\n",
		"[roles.agent]\ntimeout = 90\n",
		"[roles.agent]\ntimeout = \"-1s\"\n",
		"story = \"\\u0007bell\"\n",
		"work_dir = [\"a\"]\n",
		"[budgets\n",
		"key = \n",
		"a = 1\na = 2\n",
		"\xff\xfe = 1\n",
		"[keys.step]\nx = 1\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const name = "fuzz/lantern.toml"
		c, err := Parse(name, data)
		if c == nil {
			t.Fatalf("no configuration returned (error %v)", err)
		}
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) || len(ce.Problems) == 0 {
				t.Fatalf("error %v (%T) is not a configuration error with problems", err, err)
			}
			for _, p := range ce.Problems {
				if p.Warning || p.Source.Kind != FromFile || p.Source.Name != name {
					t.Errorf("problem %q (warning %v) does not name the file %s", p, p.Warning, name)
				}
			}
			return
		}
		var doc map[string]any
		if err := toml.Unmarshal(data, &doc); err != nil {
			t.Fatalf("accepted a file go-toml rejects: %v", err)
		}
		for _, key := range leafKeys("", doc) {
			if src, ok := c.Sources[key]; !ok || src.Kind != FromFile || src.Name != name {
				t.Errorf("%s is in the file but not applied from it (source %v, present %v)", key, src, ok)
			}
		}
		out, err := toml.Marshal(values(c))
		if err != nil {
			t.Fatalf("the values do not encode as TOML: %v", err)
		}
		again, err := Parse("lantern.toml", out)
		if err != nil {
			t.Fatalf("values of a valid file are invalid when loaded again:\n%s\n%v", out, err)
		}
		for _, k := range allKeys(c, again) {
			if a, b := c.Get(k), again.Get(k); a != b {
				t.Errorf("%s = %s, %s when loaded again", k, a, b)
			}
		}
	})
}

// leafKeys lists the dotted keys of a TOML document's values (tables are
// descended into, arrays are values).
func leafKeys(prefix string, m map[string]any) []string {
	var out []string
	for k, v := range m {
		key := k
		if prefix != "" {
			key = prefix + "." + k
		}
		if sub, ok := v.(map[string]any); ok {
			out = append(out, leafKeys(key, sub)...)
			continue
		}
		out = append(out, key)
	}
	return out
}

// values is the whole configuration as a TOML document: every key of the
// registry and every remapped key, typed as the file would write them.
func values(c *Config) map[string]any {
	doc := map[string]any{}
	put := func(path string, v any) {
		parts := strings.Split(path, ".")
		m := doc
		for _, p := range parts[:len(parts)-1] {
			sub, ok := m[p].(map[string]any)
			if !ok {
				sub = map[string]any{}
				m[p] = sub
			}
			m = sub
		}
		m[parts[len(parts)-1]] = v
	}
	for _, k := range registry().list {
		k.access(c, func(f reflect.Value) error {
			v := plain(f)
			if d, ok := v.(time.Duration); ok {
				v = formatDuration(d)
			}
			put(k.path, v)
			return nil
		})
	}
	for a, v := range c.Keys {
		put("keys."+a, v)
	}
	return doc
}

// allKeys is every registry key and every remapped key of either
// configuration, sorted.
func allKeys(cs ...*Config) []string {
	seen := map[string]bool{}
	out := KeyNames()
	for _, c := range cs {
		for a := range c.Keys {
			if k := "keys." + a; !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}
