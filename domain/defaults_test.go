package domain

import "testing"

// TestPositiveOr: a positive setting stays; zero and negatives take the
// default.
func TestPositiveOr(t *testing.T) {
	for _, c := range []struct{ v, d, want int }{{5, 3, 5}, {0, 3, 3}, {-2, 3, 3}} {
		if got := PositiveOr(c.v, c.d); got != c.want {
			t.Errorf("PositiveOr(%d, %d) = %d, want %d", c.v, c.d, got, c.want)
		}
	}
	if got := PositiveOr(0.0, 0.25); got != 0.25 {
		t.Errorf("PositiveOr(0.0, 0.25) = %v", got)
	}
}
