package sanitize

import "bytes"

// ForeignEncoding names the encoding of a text file Lantern could read but
// not write back as the person wrote it (it writes UTF-8, and UTF-16 only
// with the byte-order mark that tells it so): "UTF-32 ..." for a file with
// a UTF-32 mark, "UTF-16 without a byte-order mark" for one whose every
// other byte is NUL. Such a file is refused untouched. "" for anything
// else, UTF-8 and UTF-16 with its mark included.
func ForeignEncoding(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte{0x00, 0x00, 0xFE, 0xFF}):
		return "UTF-32 (big-endian)"
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE, 0x00, 0x00}):
		return "UTF-32 (little-endian)"
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}), bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		return "" // UTF-16 with its mark
	}
	// Text holds no NUL; UTF-16 of mostly ASCII text has one in every
	// other byte, UTF-32 three in four.
	n := min(len(data), 4096)
	if n < 2 {
		return ""
	}
	var even, odd int
	for i := 0; i < n; i++ {
		if data[i] == 0 {
			if i%2 == 0 {
				even++
			} else {
				odd++
			}
		}
	}
	switch {
	case even+odd > n/2 && even > n/4 && odd > n/4:
		return "UTF-32 without a byte-order mark"
	case even > n/4 || odd > n/4:
		return "UTF-16 without a byte-order mark"
	}
	return ""
}
