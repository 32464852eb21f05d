package zmachine

import "strings"

// KnowsWord reports whether the story's main dictionary holds word, looked
// up as the story's own tokeniser would: lower-cased, encoded as a
// dictionary word (truncated by z-characters, not letters: "just-right"
// in a version 5 story is "just-ri"), then searched.
func (m *Machine) KnowsWord(word string) (known bool) {
	safely(func() {
		var zs []uint16
		for _, r := range strings.ToLower(word) {
			c := uint16('?')
			if r < 0x80 {
				c = uint16(r)
			}
			zs = append(zs, c)
		}
		known = len(zs) > 0 && m.lookup(m.dict, zs) != 0
	})
	return known
}
