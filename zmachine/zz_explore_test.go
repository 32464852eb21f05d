package zmachine_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/lantern-if/lantern/zmachine"
)

func TestZZExplore(t *testing.T) {
	p := os.Getenv("ZZ_STORY")
	if p == "" {
		t.Skip()
	}
	data, _ := os.ReadFile(p)
	s, err := zmachine.LoadStory(data)
	if err != nil {
		t.Fatal(err)
	}
	var id *zmachine.Identity
	if os.Getenv("ZZ_ZERO") != "" {
		id = &zmachine.Identity{}
	}
	m, _ := zmachine.New(s, zmachine.Options{Seed: 12, Identity: id})
	inputs := []string{}
	if f := os.Getenv("ZZ_INPUT"); f != "" {
		b, _ := os.ReadFile(f)
		for _, l := range splitLines(string(b)) {
			inputs = append(inputs, l)
		}
	}
	for i := 0; i < 200; i++ {
		st, err := m.Run()
		fmt.Print(m.TakeOutput())
		if err != nil {
			fmt.Println("ERR", err)
			return
		}
		in := ""
		if len(inputs) > 0 {
			in, inputs = inputs[0], inputs[1:]
		} else if st != zmachine.Halted {
			fmt.Println("[[out of input]]")
			return
		}
		switch st {
		case zmachine.Halted:
			fmt.Println("[[halted]]")
			return
		case zmachine.WaitLine:
			m.SendLine(in)
		case zmachine.WaitChar:
			c := uint16(13)
			if in != "" {
				c = uint16(in[0])
			}
			m.SendChar(c)
		}
	}
}

func splitLines(s string) []string {
	var out []string
	cur := ""
	for _, r := range s {
		if r == '\n' {
			out = append(out, cur)
			cur = ""
			continue
		}
		cur += string(r)
	}
	if cur != "" {
		out = append(out, cur)
	}
	return out
}
