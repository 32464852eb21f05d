package play

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"

	"github.com/lantern-if/lantern/atomicfile"
	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/internal/bench"
	"github.com/lantern-if/lantern/memory/rundb"
)

// `lantern bench --compare A B` sets two runs, or two suites, side by
// side. A and B are each a stored run (its number, last or prev, in the
// configured story's lantern.db), a file --json printed, a bench.json, or
// a work dir holding one. Two runs of one story compare metric by metric
// (the episodes' means, the milestones, the mean score over turns); when
// either is a suite of several games or models, the suites compare game by
// game and overall (see bench.CompareSuites). --list lists the configured
// story's stored runs.

// CompareOptions are --compare's and --list's.
type CompareOptions struct {
	Wiring Wiring         // OpenStory: the configured story's lantern.db
	Config *config.Config // the configured story and work dir
	A, B   string         // --compare's references
	JSON   bool
	Width  int
	Stdout io.Writer
}

// Compare prints two runs, or two suites, side by side.
func Compare(ctx context.Context, o CompareOptions) error {
	refs := &refs{w: o.Wiring, cfg: o.Config}
	defer refs.close()
	ra, sa, err := refs.load(ctx, o.A)
	if err != nil {
		return err
	}
	rb, sb, err := refs.load(ctx, o.B)
	if err != nil {
		return err
	}
	var out any
	if ra != nil && rb != nil {
		out = bench.Comparison{A: ra, B: rb}
	} else {
		if sa == nil {
			sa = singleSuite(ra, ra.Requested)
		}
		if sb == nil {
			sb = singleSuite(rb, rb.Requested)
		}
		out = bench.CompareSuites(sa, sb)
	}
	if o.JSON {
		return printJSON(o.Stdout, out)
	}
	switch c := out.(type) {
	case bench.Comparison:
		bench.PrintComparison(o.Stdout, c.A, c.B, o.Width)
	case *bench.SuiteComparison:
		bench.PrintSuiteComparison(o.Stdout, c)
	}
	return nil
}

// List prints the configured story's stored runs.
func List(ctx context.Context, o CompareOptions) error {
	db, err := openDB(o.Wiring, o.Config)
	if err != nil {
		return err
	}
	defer db.Close()
	runs, err := db.BenchRuns(ctx)
	if err != nil {
		return err
	}
	if len(runs) == 0 {
		fmt.Fprintln(o.Stdout, "No bench runs stored for this story.")
		return nil
	}
	rows := [][]string{{"RUN", "STARTED", "LABEL", "EPISODES", "MEAN SCORE", ""}}
	for _, r := range runs {
		note := ""
		if !r.Complete {
			note = "incomplete"
		}
		rows = append(rows, []string{fmt.Sprint(r.ID), r.Started.Local().Format("2006-01-02 15:04:05"), bench.Clip(r.Label, 32), fmt.Sprint(r.Episodes),
			fmt.Sprintf("%.1f", r.Score), note})
	}
	bench.Table(o.Stdout, rows)
	return nil
}

// refs resolves --compare's references, opening the configured story's
// lantern.db only when a reference names a stored run.
type refs struct {
	w   Wiring
	cfg *config.Config
	db  *rundb.RunDB
}

func (b *refs) open() (*rundb.RunDB, error) {
	if b.db == nil {
		db, err := openDB(b.w, b.cfg)
		if err != nil {
			return nil, err
		}
		b.db = db
	}
	return b.db, nil
}

func (b *refs) close() {
	if b.db != nil {
		b.db.Close()
	}
}

// load reads a reference: a run's report, or a suite (a bench.json of one
// run is that run's report).
func (b *refs) load(ctx context.Context, ref string) (*bench.Report, *bench.Suite, error) {
	if ref == "last" || ref == "prev" {
		db, err := b.open()
		if err != nil {
			return nil, nil, err
		}
		runs, err := db.BenchRuns(ctx)
		if err != nil {
			return nil, nil, err
		}
		i := len(runs) - 1
		if ref == "prev" {
			i--
		}
		if i < 0 {
			return nil, nil, fmt.Errorf("run %q: only %d run(s) stored", ref, len(runs))
		}
		rep, err := storedReport(ctx, db, runs[i].ID)
		return rep, nil, err
	}
	if id, err := strconv.ParseInt(ref, 10, 64); err == nil {
		db, err := b.open()
		if err != nil {
			return nil, nil, err
		}
		rep, err := storedReport(ctx, db, id)
		return rep, nil, err
	}
	return loadFile(ref)
}

// loadFile reads a reference that is a file or a work dir.
func loadFile(ref string) (*bench.Report, *bench.Suite, error) {
	path := ref
	if IsDir(ref) {
		path = filepath.Join(ref, manifestName)
	}
	data, err := atomicfile.ReadRegular(path, maxReportBytes)
	if err != nil {
		return nil, nil, fmt.Errorf("run %q: not a stored run's number, last, prev, a readable report or bench.json, or a work dir holding one (%v)", ref, err)
	}
	rep, suite, err := bench.Read(data)
	if err != nil {
		return nil, nil, fmt.Errorf("run %q: %w", ref, err)
	}
	if suite != nil && len(suite.Runs) == 1 && len(suite.Stories) <= 1 {
		return suite.Runs[0], nil, nil // one story and model: the run itself
	}
	return rep, suite, nil
}

// storedReport reads a run stored in a lantern.db.
func storedReport(ctx context.Context, db *rundb.RunDB, id int64) (*bench.Report, error) {
	b, err := db.BenchRun(ctx, id)
	if err != nil {
		return nil, err
	}
	rep, _, err := bench.Read(b.Report)
	if errors.Is(err, bench.ErrNewerFormat) {
		return nil, fmt.Errorf("run %d: %w", id, err)
	}
	if err != nil || rep == nil {
		return nil, fmt.Errorf("run %d: not a bench report", id)
	}
	rep.ID = id
	return rep, nil
}

// openDB opens the configured story's lantern.db for reading runs.
func openDB(w Wiring, cfg *config.Config) (*rundb.RunDB, error) {
	story, name, err := w.OpenStory(cfg.Story, cfg.WorkDir)
	if err != nil {
		return nil, err
	}
	return session.OpenStored(cfg.WorkDir, name, story)
}
