package progress

import "time"

// ticker calls a function at an interval on its own goroutine until it is
// ended: the live line's redraws, the plain lines between updates.
type ticker struct {
	stop chan struct{}
	done chan struct{} // nil until started (tests draw by hand)
}

func newTicker() ticker { return ticker{stop: make(chan struct{})} }

// run calls tick every interval until end.
func (c *ticker) run(every time.Duration, tick func()) {
	c.done = make(chan struct{})
	go func() {
		defer close(c.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-c.stop:
				return
			case <-t.C:
				tick()
			}
		}
	}()
}

// end stops the clock and waits for its last tick; it reports false when
// the clock had already ended.
func (c *ticker) end() bool {
	select {
	case <-c.stop:
		return false
	default:
	}
	close(c.stop)
	if c.done != nil {
		<-c.done
	}
	return true
}
