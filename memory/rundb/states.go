package rundb

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// Every turn's state (the machine's save and the engine's JSON) is kept in
// turn_states, compressed. A keyframe is the state compressed on its own; a
// delta is the state compressed with the previous turn's state of the same
// episode as flate's preset dictionary, which a turn changes little. The
// state is cut into segments, each compressed with the previous state's
// bytes around the same offset as its dictionary, so matches stay within
// flate's 32 KB window however large the state grows. A chain is a keyframe
// and the deltas after it; it is at most keyEvery turns long, so reading a
// state decompresses at most keyEvery blobs.

// ErrState: a stored turn state could not be decoded (corrupt, truncated,
// or a delta without the state it was made against).
var ErrState = errors.New("unusable turn state")

const (
	// keyEvery bounds a chain: a keyframe at least every keyEvery turns.
	keyEvery = 32
	// segLen is the length of a delta's segments; segSlack how far before
	// and after a segment's offset its dictionary reaches in the previous
	// state (segLen+2*segSlack is flate's window).
	segLen   = 16 << 10
	segSlack = 8 << 10
	// maxState bounds a decoded state: a corrupt length cannot make the
	// decoder allocate without bound.
	maxState = 256 << 20
	// maxRatio bounds what one compressed byte can stand for (DEFLATE's
	// limit is 1032 to 1): a corrupt length fails before it is allocated.
	maxRatio = 1100
	// stateLevel is flate's level (the fastest level ignores the
	// dictionary).
	stateLevel = 6
)

// The first byte of a blob is its kind.
const (
	kindKey   = 'K'
	kindDelta = 'D'
)

// encodeState compresses a state: a keyframe when prev is nil, otherwise a
// delta against prev (the previous turn's raw state).
func encodeState(raw []byte, machineLen int, prev []byte) ([]byte, error) {
	kind := byte(kindKey)
	if prev != nil {
		kind = kindDelta
	}
	out := []byte{kind}
	out = binary.AppendUvarint(out, uint64(machineLen))
	out = binary.AppendUvarint(out, uint64(len(raw)))
	out = binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(raw))
	if prev == nil {
		return compressInto(out, raw, nil)
	}
	for off := 0; off < len(raw); off += segLen {
		seg := raw[off:min(off+segLen, len(raw))]
		c, err := compressInto(nil, seg, window(prev, off))
		if err != nil {
			return nil, err
		}
		out = binary.AppendUvarint(out, uint64(len(c)))
		out = append(out, c...)
	}
	return out, nil
}

// window is the part of the previous state a segment at off is compressed
// against.
func window(prev []byte, off int) []byte {
	lo, hi := max(0, off-segSlack), min(len(prev), off+segLen+segSlack)
	if lo >= hi {
		return nil
	}
	return prev[lo:hi]
}

func compressInto(out, data, dict []byte) ([]byte, error) {
	b := bytes.NewBuffer(out)
	w, err := flate.NewWriterDict(b, stateLevel, dict)
	if err != nil {
		return nil, fmt.Errorf("compress state: %w", err)
	}
	if _, err := w.Write(data); err != nil {
		return nil, fmt.Errorf("compress state: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("compress state: %w", err)
	}
	return b.Bytes(), nil
}

// isKeyframe reports whether a blob decodes without a previous state.
func isKeyframe(blob []byte) bool { return len(blob) > 0 && blob[0] == kindKey }

// stateDecoder decodes blobs, reusing one flate reader.
type stateDecoder struct {
	fr io.ReadCloser
}

// decode returns a blob's raw state and the length of its machine part;
// prev is the previous turn's raw state (nil when not at hand: a delta is
// then an error).
func (d *stateDecoder) decode(blob, prev []byte) (raw []byte, machineLen int, err error) {
	if len(blob) == 0 {
		return nil, 0, fmt.Errorf("%w: empty", ErrState)
	}
	kind := blob[0]
	r := bytes.NewReader(blob[1:])
	ml, err1 := binary.ReadUvarint(r)
	n, err2 := binary.ReadUvarint(r)
	var sum [4]byte
	_, err3 := io.ReadFull(r, sum[:])
	switch {
	case kind != kindKey && kind != kindDelta:
		return nil, 0, fmt.Errorf("%w: unknown kind %q", ErrState, kind)
	case err1 != nil || err2 != nil || err3 != nil:
		return nil, 0, fmt.Errorf("%w: truncated header", ErrState)
	case n > maxState || ml > n || n > maxRatio*uint64(len(blob))+64:
		return nil, 0, fmt.Errorf("%w: lengths %d/%d out of range", ErrState, ml, n)
	case kind == kindDelta && prev == nil:
		return nil, 0, fmt.Errorf("%w: a delta without its previous state", ErrState)
	}
	raw = make([]byte, 0, n)
	if kind == kindKey {
		if raw, err = d.inflate(raw, r, nil, int(n)); err != nil {
			return nil, 0, err
		}
	} else {
		for off := 0; off < int(n); off += segLen {
			c, err := binary.ReadUvarint(r)
			if err != nil || c > uint64(r.Len()) {
				return nil, 0, fmt.Errorf("%w: truncated segment at %d", ErrState, off)
			}
			seg := blob[len(blob)-r.Len():][:c]
			r.Seek(int64(c), io.SeekCurrent)
			if raw, err = d.inflate(raw, bytes.NewReader(seg), window(prev, off), min(segLen, int(n)-off)); err != nil {
				return nil, 0, err
			}
		}
	}
	if r.Len() != 0 {
		return nil, 0, fmt.Errorf("%w: %d bytes after the state", ErrState, r.Len())
	}
	if crc32.ChecksumIEEE(raw) != binary.BigEndian.Uint32(sum[:]) {
		return nil, 0, fmt.Errorf("%w: checksum mismatch", ErrState)
	}
	return raw, int(ml), nil
}

// inflate appends exactly n bytes decompressed from src (with dict) to out.
func (d *stateDecoder) inflate(out []byte, src *bytes.Reader, dict []byte, n int) ([]byte, error) {
	if d.fr == nil {
		d.fr = flate.NewReaderDict(src, dict)
	} else if err := d.fr.(flate.Resetter).Reset(src, dict); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrState, err)
	}
	start := len(out)
	out = append(out, make([]byte, n)...)
	if _, err := io.ReadFull(d.fr, out[start:]); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrState, err)
	}
	// The stream must end exactly there.
	var one [1]byte
	if k, err := d.fr.Read(one[:]); k != 0 || err != io.EOF {
		return nil, fmt.Errorf("%w: longer than its stated length", ErrState)
	}
	return out, nil
}
