package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/internal/bench"
)

// benchHosts chooses where a bench's model calls go when the global server
// list names several hosts: the hosts that answer (a dead one is skipped
// with a warning; cfg narrowed to the one when one answers). A run without
// a model, or with fewer than two hosts in the list, is left as it is (no
// hosts).
func benchHosts(ctx context.Context, cfg *config.Config, o benchOptions, stderr io.Writer) (*config.Config, []string, error) {
	if strings.HasPrefix(o.agent, "script:") && !o.modelSet {
		return cfg, nil, nil // no model is asked
	}
	live, err := liveHosts(ctx, cfg, "lantern bench", stderr)
	if err != nil {
		return cfg, nil, err
	}
	if len(live) == 1 {
		cfg = pinHost(cfg, live[0])
	}
	return cfg, live, nil
}

// playOnHosts plays a segment's episodes on several hosts at once: one
// consecutive part of them a host, each part a session of its own with
// every request on its host (its prompt cache) and its own work dir under
// the run's (host-1, host-2, ...), the parts joined into the run's report,
// which is stored as playBench stores one. Each episode keeps the seed the
// whole run gives it, so the scores are one host's.
func playOnHosts(ctx context.Context, cfg *config.Config, o benchOptions, seg benchSegment, hosts []string, stderr io.Writer) (*bench.Report, int, error) {
	story, name, _, err := openStoryAndBinding(cfg.Story, cfg.WorkDir)
	if err != nil {
		return nil, exitError, err
	}
	info := story.Info()
	runDir := o.playDir
	if runDir == "" {
		if runDir, err = benchWorkDir(cfg, name, info.Release, o.workdirSet); err != nil {
			return nil, exitError, err
		}
	}
	k := min(len(hosts), seg.count)
	fmt.Fprintf(stderr, "lantern bench: %d episode(s) on %d hosts at once, each episode on one host: %v\n", seg.count, k, hosts[:k])
	parts := make([]*bench.Report, k)
	codes := make([]int, k)
	errs := make([]error, k)
	out := &lockedLines{w: stderr}
	var wg sync.WaitGroup
	first, seed := seg.first, seg.seed
	for i := range k {
		n := seg.count / k
		if i < seg.count%k {
			n++
		}
		part := benchSegment{first: first, count: n, seed: seed, shard: &bench.ShardInfo{Index: i + 1, Count: k, FirstEpisode: first, Total: o.episodes}}
		po := o
		po.playDir = filepath.Join(runDir, fmt.Sprintf("host-%d", i+1))
		host := hosts[i]
		w := out.prefixed(fmt.Sprintf("[%s] ", host))
		wg.Go(func() {
			parts[i], codes[i], errs[i] = playBench(ctx, pinHost(cfg, host), po, part, w)
		})
		first, seed = first+n, seed+n
	}
	wg.Wait()
	code := exitOK
	var played []*bench.Report
	for i := range k {
		if errs[i] != nil {
			return nil, exitError, fmt.Errorf("host %s: %w", hosts[i], errs[i])
		}
		code = max(code, codes[i])
		played = append(played, parts[i])
	}
	rep := mergeRuns(played, o.episodes)
	rep.Requested, rep.Shard, rep.WorkDir, rep.DB = seg.count, seg.shard, runDir, played[0].DB
	rep.Complete = rep.Complete && len(rep.Episodes) == seg.count && ctx.Err() == nil
	if !o.workdirSet && o.playDir == "" && seg.shard == nil {
		run, err := benchRunRow(rep)
		if err != nil {
			return nil, exitError, err
		}
		if rep.ID, rep.Index, err = indexBenchRun(context.Background(), cfg, name, info.Release, info.MD5, run); err != nil {
			fmt.Fprintln(stderr, "lantern bench:", errText(err))
			code = exitError
		}
	}
	return rep, code, nil
}

// lockedLines writes whole lines from several writers to one, each line
// whole, with its writer's prefix.
type lockedLines struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedLines) prefixed(prefix string) io.Writer { return &prefixLines{to: l, prefix: prefix} }

// prefixLines is one writer of a lockedLines: it holds a partial line
// until its end comes.
type prefixLines struct {
	to     *lockedLines
	prefix string
	buf    []byte
}

func (p *prefixLines) Write(b []byte) (int, error) {
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexAny(p.buf, "\r\n")
		if i < 0 {
			return len(b), nil
		}
		line := p.buf[:i]
		p.buf = p.buf[i+1:]
		if len(bytes.TrimSpace(line)) == 0 {
			continue // a live line's clearing: nothing to say
		}
		p.to.mu.Lock()
		_, err := fmt.Fprintf(p.to.w, "%s%s\n", p.prefix, line)
		p.to.mu.Unlock()
		if err != nil {
			return len(b), err
		}
	}
}
