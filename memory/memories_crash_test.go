package memory

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// crashWrites is how many memories a writer child adds when it is not
// killed first.
const crashWrites = 500

// crashWriter is the child of TestCrashSafety: it adds crashWrites memories
// to the store at path and prints "ack N" after each write returns.
func crashWriter(path string) {
	s, err := Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	out := bufio.NewWriter(os.Stdout)
	for i := range crashWrites {
		m := Memory{Category: CategoryNote, Status: StatusActive, Title: crashTitle(i), Episode: 1, Turn: i + 1, HasScore: true,
			Text: "Written by the crash test child; it must survive any kill after its ack."}
		if err := s.Add(1+i%17, "Room "+strconv.Itoa(1+i%17), m); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(4)
		}
		fmt.Fprintf(out, "ack %d\n", i)
		out.Flush()
	}
}

func crashTitle(i int) string { return "Crash write " + strconv.Itoa(i) }

// Acceptance 3: a child process writing 500 memories is killed (SIGKILL)
// at a random moment, 50 times. Each time the file parses without a
// problem, every acknowledged write is in it (and at most one more), and
// the backup exists and parses. Runs go four at a time, each in its own
// directory, and each directory sees several runs: a run starts from the
// debris of the kill before it (temporary files, the lock file).
func TestCrashSafety(t *testing.T) {
	t.Parallel() // waits on children or a held lock, not on the processor
	if testing.Short() {
		t.Skip("kills child processes; skipped with -short")
	}
	const runs, parallel = 50, 4
	seed := fixture(t, "seed003_example.md")
	base := crashDir(t)
	start := time.Now()
	jobs := make(chan int)
	type result struct {
		acks int
		err  error
	}
	results := make(chan result, runs)
	for w := range parallel {
		dir := filepath.Join(base, strconv.Itoa(w))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(w), uint64(time.Now().UnixNano())))
		go func() {
			for run := range jobs {
				acks, err := crashCheck(filepath.Join(dir, "Memories.md"), seed, rng)
				if err != nil {
					err = fmt.Errorf("run %d: %w", run, err)
				}
				results <- result{acks, err}
			}
		}()
	}
	go func() {
		for run := range runs {
			jobs <- run
		}
		close(jobs)
	}()
	total := 0
	for range runs {
		r := <-results
		if r.err != nil {
			t.Error(r.err)
		}
		total += r.acks
	}
	t.Logf("%d runs, %d acknowledged writes, %v", runs, total, time.Since(start).Round(time.Millisecond))
}

// crashDir is where the crash test writes: in memory (/dev/shm) when the
// system has it, else the test's temporary directory. A SIGKILL leaves the
// kernel's page cache intact, so what the test checks (a file is replaced
// whole or not at all, acknowledged writes are there) does not depend on the
// disk; the disk's fsyncs only make the runs slower.
func crashDir(t *testing.T) string {
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if dir, err := os.MkdirTemp("/dev/shm", "lantern-memory-crash-"); err == nil {
			t.Cleanup(func() { os.RemoveAll(dir) })
			return dir
		}
	}
	return t.TempDir()
}

// crashCheck is one run: it writes the seed file, kills a writer after a
// random number of acknowledged writes (the whole run for some) and a
// random fraction of a write later, and checks the file and the backup.
func crashCheck(path, seed string, rng *rand.Rand) (int, error) {
	if err := os.WriteFile(path, []byte(seed), 0o644); err != nil {
		return 0, err
	}
	os.Remove(path + ".backup")
	target := rng.IntN(crashWrites + 20)
	delay := time.Duration(rng.IntN(3000)) * time.Microsecond
	acks, finished, err := crashRun(path, target, delay)
	if err != nil {
		return acks, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return acks, err
	}
	f := Parse(data)
	if p := f.Problems(); len(p) != 0 {
		return acks, fmt.Errorf("killed after %d acks: problems %v", acks, p)
	}
	titles := map[string]bool{}
	written := 0
	for _, s := range f.Sections() {
		for _, m := range s.Memories {
			titles[m.Title] = true
			if strings.HasPrefix(m.Title, "Crash write ") {
				written++
			}
		}
	}
	for i := range acks {
		if !titles[crashTitle(i)] {
			return acks, fmt.Errorf("acknowledged write %d missing (of %d)", i, acks)
		}
	}
	if written < acks || written > acks+1 || (finished && written != crashWrites) {
		return acks, fmt.Errorf("%d writes in the file, %d acknowledged", written, acks)
	}
	if acks > 0 {
		b, err := os.ReadFile(path + ".backup")
		if err != nil {
			return acks, fmt.Errorf("backup: %w", err)
		}
		if p := Parse(b).Problems(); len(p) != 0 {
			return acks, fmt.Errorf("backup problems %v", p)
		}
	}
	return acks, nil
}

// crashRun starts a writer child on path and kills it delay after its
// target-th ack (or lets it finish). It returns the acks read and whether
// the child finished all its writes.
func crashRun(path string, target int, delay time.Duration) (int, bool, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestMemoryHelperProcess$")
	cmd.Env = append(os.Environ(), helperEnv+"=writer:"+path)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, false, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return 0, false, err
	}
	var mu sync.Mutex
	killed := false
	kill := func() {
		mu.Lock()
		defer mu.Unlock()
		if !killed {
			killed = true
			cmd.Process.Signal(syscall.SIGKILL)
		}
	}
	if target == 0 {
		time.AfterFunc(delay, kill)
	}
	got := 0
	var bad error
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		n, ok := strings.CutPrefix(sc.Text(), "ack ")
		if !ok {
			continue
		}
		if i, err := strconv.Atoi(n); err != nil || i != got {
			bad = fmt.Errorf("ack %q after %d acks", n, got)
		}
		got++
		if got == target {
			time.AfterFunc(delay, kill)
		}
	}
	err = cmd.Wait()
	mu.Lock()
	wasKilled := killed
	killed = true // no kill after the child is gone
	mu.Unlock()
	finished := got == crashWrites
	switch {
	case bad != nil:
		return got, finished, bad
	case err != nil && !wasKilled:
		return got, finished, fmt.Errorf("writer failed: %v\n%s", err, stderr.String())
	case err == nil && !finished:
		return got, finished, fmt.Errorf("writer exited after %d acks\n%s", got, stderr.String())
	}
	return got, finished, nil
}
