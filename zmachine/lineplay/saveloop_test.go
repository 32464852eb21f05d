package lineplay

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/lantern-if/lantern/zmachine"
	"github.com/lantern-if/lantern/zmachine/zasm"
)

// A story that asks SAVE again and again without reading a line ends, as
// dfrotz does, when the input ends at the file-name prompt: one prompt, not
// one per try.
func TestSaveLoopAtEndOfInputEnds(t *testing.T) {
	for _, v := range []int{3, 5} {
		img := buildStory(t, v, func(b *zasm.Builder, r *zasm.Routine) {
			r.Label("again")
			if v >= 5 {
				r.Op("save").Store(zasm.SP)
			} else {
				lbl := r.NewLabel("ok")
				r.Op("save").Branch(lbl, true)
				r.Label(lbl)
			}
			r.Jump("again")
		})
		story, err := zmachine.LoadStory(img)
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		done := make(chan error, 1)
		go func() {
			done <- Run(context.Background(), story, Options{SaveDir: t.TempDir()}, strings.NewReader(""), &out)
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("v%d: %v", v, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("v%d: still running", v)
		}
		if n := strings.Count(out.String(), "Please enter a filename"); n != 1 {
			t.Fatalf("v%d: %d prompts, want 1", v, n)
		}
	}
}
