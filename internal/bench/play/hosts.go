package play

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
func benchHosts(ctx context.Context, cfg *config.Config, o Options) (*config.Config, []string, error) {
	if strings.HasPrefix(o.Agent, "script:") && !o.ModelSet {
		return cfg, nil, nil // no model is asked
	}
	live, err := o.Wiring.LiveHosts(ctx, cfg, o.Stderr)
	if err != nil {
		return cfg, nil, err
	}
	if len(live) == 1 {
		cfg = o.Wiring.PinHost(cfg, live[0])
	}
	return cfg, live, nil
}

// playOnHosts plays a segment's episodes on several hosts at once: one
// consecutive part of them a host, each part a session of its own with
// every request on its host (its prompt cache) and its own work dir under
// the run's (host-1, host-2, ...), the parts joined into the run's report,
// which is stored as playBench stores one. Each episode keeps the seed the
// whole run gives it, so the scores are one host's.
func playOnHosts(ctx context.Context, cfg *config.Config, o Options, seg segment, hosts []string) (*bench.Report, int, error) {
	st, err := openStory(o.Wiring, cfg.Story, cfg.WorkDir)
	if err != nil {
		return nil, exitError, err
	}
	info := st.Story.Info()
	runDir := o.playDir
	if runDir == "" {
		if runDir, err = runWorkDir(cfg, st.Name, info.Release, o.WorkdirSet); err != nil {
			return nil, exitError, err
		}
	}
	k := min(len(hosts), seg.count)
	fmt.Fprintf(o.Stderr, "lantern bench: %d episode(s) on %d hosts at once, each episode on one host: %v\n", seg.count, k, hosts[:k])
	played, code, err := playParallel(ctx, cfg, o, seg, hosts[:k], runDir)
	if err != nil {
		return nil, exitError, err
	}
	rep := mergeRuns(played, o.Episodes)
	rep.Requested, rep.Shard, rep.WorkDir, rep.DB = seg.count, seg.shard, runDir, played[0].DB
	rep.Complete = rep.Complete && len(rep.Episodes) == seg.count && ctx.Err() == nil
	if !o.WorkdirSet && o.playDir == "" && seg.shard == nil {
		run, err := runRow(rep)
		if err != nil {
			return nil, exitError, err
		}
		if rep.ID, rep.Index, err = indexRun(context.Background(), cfg, st.Name, info.Release, info.MD5, run); err != nil {
			fmt.Fprintln(o.Stderr, "lantern bench:", errText(err))
			code = exitError
		}
	}
	return rep, code, nil
}

// playParallel plays one consecutive part of the segment's episodes on
// each host at once, each in its folder of runDir, its lines prefixed with
// its host.
func playParallel(ctx context.Context, cfg *config.Config, o Options, seg segment, hosts []string, runDir string) ([]*bench.Report, int, error) {
	k := len(hosts)
	parts := make([]*bench.Report, k)
	codes := make([]int, k)
	errs := make([]error, k)
	out := &lockedLines{w: o.Stderr}
	var wg sync.WaitGroup
	first, seed := seg.first, seg.seed
	for i := range k {
		n := seg.count / k
		if i < seg.count%k {
			n++
		}
		part := segment{first: first, count: n, seed: seed, shard: &bench.ShardInfo{Index: i + 1, Count: k, FirstEpisode: first, Total: o.Episodes}}
		po := o
		po.playDir = filepath.Join(runDir, fmt.Sprintf("host-%d", i+1))
		host := hosts[i]
		w := out.prefixed(fmt.Sprintf("[%s] ", host))
		wg.Go(func() {
			parts[i], codes[i], errs[i] = playBench(ctx, o.Wiring.PinHost(cfg, host), po, part, w)
		})
		first, seed = first+n, seed+n
	}
	wg.Wait()
	code := exitOK
	for i := range k {
		if errs[i] != nil {
			return nil, exitError, fmt.Errorf("host %s: %w", hosts[i], errs[i])
		}
		code = max(code, codes[i])
	}
	return parts, code, nil
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
