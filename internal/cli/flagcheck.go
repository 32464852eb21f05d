package cli

import (
	"github.com/spf13/pflag"

	"github.com/lantern-if/lantern/sanitize"
)

// maxEpisodes bounds --episodes: a count no run will reach, far below one
// that would make planning allocate without end.
const maxEpisodes = 100_000

// intRange is one numeric flag's allowed values.
type intRange struct {
	name   string
	lo, hi int
}

// checkIntFlags refuses (as a usage error) a numeric flag given outside its
// range, so a negative or huge count never reaches the loop or an
// allocation. Flags left at their defaults are not checked.
func checkIntFlags(fs *pflag.FlagSet, ranges ...intRange) error {
	for _, r := range ranges {
		f := fs.Lookup(r.name)
		if f == nil || !f.Changed {
			continue
		}
		v, err := fs.GetInt(r.name)
		if err != nil {
			return usageError(err)
		}
		if v < r.lo || v > r.hi {
			return usageErrorf("--%s must be from %d to %d, not %d", r.name, r.lo, r.hi, v)
		}
	}
	return nil
}

// clip shortens text for a message: a huge value (a story name, a host)
// shows its start and its length, never all of it.
func clip(s string) string { return sanitize.Clip(s, 200) }

// maxNoteBytes is the largest note a person edits that Lantern reads:
// anything larger, or not a regular file, is refused before a byte is read
// (the bench bounds its report files in internal/bench/play).
const maxNoteBytes = 1 << 20
