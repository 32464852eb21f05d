package llm

import "testing"

func TestHumanSizeAsOllamaListShowsIt(t *testing.T) {
	for _, tc := range []struct {
		in   int64
		want string
	}{
		{0, "0 B"}, {999, "999 B"}, {1000, "1 KB"}, {1500, "1.5 KB"}, {523_000_000, "523 MB"},
		{2_000_000_000, "2 GB"}, {4_683_087_332, "4.7 GB"}, {12_900_000_000, "12 GB"}, {1_200_000_000_000, "1.2 TB"},
	} {
		if got := HumanSize(tc.in); got != tc.want {
			t.Errorf("HumanSize(%d) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
