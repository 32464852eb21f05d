package llm

import (
	"fmt"
	"math"
)

// HumanSize writes a model's size as `ollama list` does: decimal units
// (1 KB = 1000 bytes), a whole number from 10 up, one decimal below 10
// unless the value is whole ("4.7 GB", "523 MB", "2 GB", "999 B").
func HumanSize(b int64) string {
	units := []struct {
		size float64
		name string
	}{{1e12, "TB"}, {1e9, "GB"}, {1e6, "MB"}, {1e3, "KB"}}
	for _, u := range units {
		if float64(b) < u.size {
			continue
		}
		v := float64(b) / u.size
		if v < 10 && v != math.Trunc(v) {
			return fmt.Sprintf("%.1f %s", v, u.name)
		}
		return fmt.Sprintf("%d %s", int64(v), u.name)
	}
	return fmt.Sprintf("%d B", b)
}
