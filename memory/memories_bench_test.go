package memory

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// synthMemories is a Memories.md of locations × perLocation memories in the
// canonical form, about 230 bytes a memory: 110 × 8 is the size a file
// reaches after many episodes, about 200 KB.
func synthMemories(locations, perLocation int) []byte {
	var b strings.Builder
	b.WriteString("# Location Memories\n")
	cats := Categories()
	for l := 1; l <= locations; l++ {
		fmt.Fprintf(&b, "\n## Location %d: Room number %d\n**Visits:** %d | **Episodes:** 1, 2, 3\n\n### Memories\n", 10+l*3, l, l%9+1)
		for i := range perLocation {
			m := Memory{Category: cats[(l+i)%5], Status: StatusActive, Title: fmt.Sprintf("Lesson %d learned in room %d", i, l),
				Episode: 1 + i%3, Turn: 10 + l + i, HasScore: i%2 == 0,
				Text: "Something the agent learned here, synthesised by the memory model into a sentence or two " +
					"of insight: what worked, what failed, and what to try next time it comes by."}
			if i == perLocation-1 {
				m.Status = StatusTentative
			}
			b.WriteString("\n")
			b.WriteString(strings.Join(entryLines(m), "\n"))
			b.WriteString("\n")
		}
		b.WriteString("\n---\n")
	}
	return []byte(b.String())
}

func TestSynthMemoriesIsValid(t *testing.T) {
	data := synthMemories(110, 8)
	if n := len(data); n < 190_000 || n > 215_000 {
		t.Errorf("%d bytes", n)
	}
	f := Parse(data)
	if p := f.Problems(); len(p) != 0 {
		t.Fatalf("problems: %v", p[:min(len(p), 5)])
	}
	if got := f.Format(); string(got) != string(data) {
		t.Error("synthesised file is not canonical")
	}
}

// Goal: at most 5 ms.
func BenchmarkParseMemories200KB(b *testing.B) {
	data := synthMemories(110, 8)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		Parse(data)
	}
}

func BenchmarkFormatMemories200KB(b *testing.B) {
	f := Parse(synthMemories(110, 8))
	b.ReportAllocs()
	for b.Loop() {
		f.Format()
	}
}

// BenchmarkDurableWrite is one Store.Add on a 200 KB Memories.md on disk:
// lock, check the file, write it durably with its backup. It reports the
// 50th and 99th percentiles; the goal is a p99 of at most 10 ms.
func BenchmarkDurableWrite(b *testing.B) {
	path := filepath.Join(b.TempDir(), "Memories.md")
	if err := os.WriteFile(path, synthMemories(110, 8), 0o644); err != nil {
		b.Fatal(err)
	}
	s, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var times []time.Duration
	i := 0
	for b.Loop() {
		m := Memory{Category: CategoryFailure, Status: StatusActive, Title: fmt.Sprintf("Benchmark write %d", i), Episode: 4, Turn: i + 1,
			Text: "A new memory the model synthesised this turn."}
		start := time.Now()
		if err := s.Add(13+(i%110)*3, "Room", m); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
		i++
	}
	slices.Sort(times)
	pct := func(p float64) float64 {
		return float64(times[min(len(times)-1, int(p*float64(len(times))))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}

// Goal: at most 50 µs.
func BenchmarkLocationMemory(b *testing.B) {
	path := filepath.Join(b.TempDir(), "Memories.md")
	if err := os.WriteFile(path, synthMemories(110, 8), 0o644); err != nil {
		b.Fatal(err)
	}
	s, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if s.LocationMemory(13+(i%110)*3) == FirstVisit {
			b.Fatal("no memories")
		}
		i++
	}
}
