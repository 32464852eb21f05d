package config

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// manyTables is a configuration of n unknown role tables.
func manyTables(n int) []byte {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "[roles.r%d]\nmodel = \"x\"\n", i)
	}
	return []byte(b.String())
}

// A configuration with more tables than a configuration ever has is
// refused before it is decoded, with one problem, not one per table.
func TestTooManyTablesRefused(t *testing.T) {
	_, err := ParseChecked("big.toml", manyTables(100_000), nil)
	var ce *Error
	if !errors.As(err, &ce) || len(ce.Problems) != 1 || !strings.Contains(ce.Problems[0].Msg, "100000 tables") {
		t.Fatalf("error %v", err)
	}
}

// Checking a configuration is bounded: the decoder's own check is
// quadratic in the tables, so at most MaxTables are decoded (about 20 ms);
// 100,000 are refused after one linear pass over them.
func BenchmarkCheckManyTables(b *testing.B) {
	for _, n := range []int{100, MaxTables, 100_000} {
		data := manyTables(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				ParseChecked("big.toml", data, nil)
			}
		})
	}
}
