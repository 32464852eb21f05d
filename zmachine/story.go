package zmachine

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"sync"
)

// Header byte offsets (Z-Machine Standards Document §11).
const (
	hVersion       = 0x00
	hFlags1        = 0x01
	hRelease       = 0x02
	hHighMem       = 0x04
	hInitialPC     = 0x06
	hDictionary    = 0x08
	hObjects       = 0x0A
	hGlobals       = 0x0C
	hStaticMem     = 0x0E
	hFlags2        = 0x10
	hSerial        = 0x12
	hAbbrevs       = 0x18
	hFileLength    = 0x1A
	hChecksum      = 0x1C
	hInterpNumber  = 0x1E
	hInterpVersion = 0x1F
	hScreenRows    = 0x20
	hScreenCols    = 0x21
	hScreenWidth   = 0x22
	hScreenHeight  = 0x24
	hFontWidth     = 0x26 // v5; swapped with height in v6
	hFontHeight    = 0x27
	hRoutineOffset = 0x28
	hStringOffset  = 0x2A
	hDefaultBG     = 0x2C
	hDefaultFG     = 0x2D
	hTermChars     = 0x2E
	hStandard      = 0x32
	hAlphabet      = 0x34
	hExtension     = 0x36
	headerSize     = 0x40
)

// Story is a validated, immutable story file. Many machines, on many
// goroutines, may share one.
type Story struct {
	data    []byte // the file as loaded; never modified
	version int
	md5     func() string // computed on first use: playing a story never needs it
}

// StoryInfo identifies a story file.
type StoryInfo struct {
	Version  int    `json:"version"`
	Release  int    `json:"release"`
	Serial   string `json:"serial"`
	Checksum uint16 `json:"checksum"`
	MD5      string `json:"md5"`
	Size     int    `json:"size"`
}

// LoadStory validates a story file image and keeps a copy of it. It never
// panics: files that are truncated, corrupt or of an unsupported version
// give an error wrapping ErrTruncated, ErrCorrupt or ErrUnsupportedVersion.
func LoadStory(data []byte) (*Story, error) {
	return loadStory(data, true)
}

// LoadStoryOwned is LoadStory for a buffer the caller gives away (a file
// just read): the story keeps data itself, which must not be changed
// afterwards.
func LoadStoryOwned(data []byte) (*Story, error) {
	return loadStory(data, false)
}

func loadStory(data []byte, copyData bool) (*Story, error) {
	if len(data) < headerSize {
		return nil, fmt.Errorf("%w: %d bytes, a header needs %d", ErrTruncated, len(data), headerSize)
	}
	v := int(data[hVersion])
	switch v {
	case 1, 2, 3, 4, 5, 7, 8:
	case 6:
		return nil, fmt.Errorf("%w: version 6 (graphical stories are not supported)", ErrUnsupportedVersion)
	default:
		return nil, fmt.Errorf("%w: version byte %d (not a Z-machine story?)", ErrUnsupportedVersion, v)
	}
	word := func(a int) int { return int(data[a])<<8 | int(data[a+1]) }
	size := len(data)
	if fl := word(hFileLength); fl != 0 && v >= 3 {
		want := fl * fileLengthScale(v)
		if want > size {
			return nil, fmt.Errorf("%w: header says %d bytes, file has %d", ErrTruncated, want, size)
		}
	}
	static := word(hStaticMem)
	if static < headerSize || static > size {
		return nil, fmt.Errorf("%w: static memory base 0x%x outside 0x40..0x%x", ErrCorrupt, static, size)
	}
	if static > 0x10000 {
		return nil, fmt.Errorf("%w: dynamic memory 0x%x exceeds 64K", ErrCorrupt, static)
	}
	high := word(hHighMem)
	if high > size {
		return nil, fmt.Errorf("%w: high memory base 0x%x beyond end 0x%x", ErrCorrupt, high, size)
	}
	checks := []struct {
		name string
		addr int
		need int
	}{
		{"dictionary", word(hDictionary), 4},
		{"object table", word(hObjects), 2 * defaultPropCount(v)},
		{"globals", word(hGlobals), 480},
	}
	// A story that never abbreviates may leave the table's address 0 (as
	// Inform does); interpreters play it, so only a table that is there
	// must lie inside the file.
	if v >= 2 && word(hAbbrevs) != 0 {
		checks = append(checks, struct {
			name string
			addr int
			need int
		}{"abbreviations", word(hAbbrevs), 2})
	}
	for _, c := range checks {
		if c.addr < headerSize || c.addr+c.need > size {
			return nil, fmt.Errorf("%w: %s at 0x%x outside the file (0x%x bytes)", ErrCorrupt, c.name, c.addr, size)
		}
	}
	if word(hGlobals)+480 > static {
		return nil, fmt.Errorf("%w: global variables at 0x%x are not in dynamic memory (ends 0x%x)", ErrCorrupt, word(hGlobals), static)
	}
	if pc := word(hInitialPC); pc < headerSize || pc >= size {
		return nil, fmt.Errorf("%w: initial PC 0x%x outside the file", ErrCorrupt, pc)
	}
	cp := data[:size:size]
	if copyData {
		cp = make([]byte, size)
		copy(cp, data)
	}
	return &Story{data: cp, version: v, md5: sync.OnceValue(func() string {
		sum := md5.Sum(cp)
		return hex.EncodeToString(sum[:])
	})}, nil
}

// Version is the story's Z-machine version.
func (s *Story) Version() int { return s.version }

// Bytes returns a copy of the story file image.
func (s *Story) Bytes() []byte { return append([]byte(nil), s.data...) }

// Info describes the story: version, release, serial, checksum, md5.
func (s *Story) Info() StoryInfo {
	d := s.data
	return StoryInfo{
		Version:  s.version,
		Release:  int(d[hRelease])<<8 | int(d[hRelease+1]),
		Serial:   serialString(d[hSerial : hSerial+6]),
		Checksum: uint16(d[hChecksum])<<8 | uint16(d[hChecksum+1]),
		MD5:      s.md5(),
		Size:     len(d),
	}
}

func serialString(b []byte) string {
	out := make([]byte, len(b))
	for i, c := range b {
		if c < 32 || c > 126 {
			c = '?'
		}
		out[i] = c
	}
	return string(out)
}

func fileLengthScale(v int) int {
	switch {
	case v <= 3:
		return 2
	case v <= 5:
		return 4
	default:
		return 8
	}
}

func defaultPropCount(v int) int {
	if v <= 3 {
		return 31
	}
	return 63
}
