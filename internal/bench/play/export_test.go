package play

import (
	"context"
	"io"

	"github.com/lantern-if/lantern/internal/bench"
	"github.com/lantern-if/lantern/memory/rundb"
)

// The wing's insides its tests (package play_test) read.

// ManifestName is a run's or a suite's report in its work dir.
const ManifestName = manifestName

func StoredReport(ctx context.Context, db *rundb.RunDB, id int64) (*bench.Report, error) {
	return storedReport(ctx, db, id)
}

func SingleSuite(r *bench.Report, episodes int) *bench.Suite { return singleSuite(r, episodes) }

func PrepareShardDir(dir, version string, stderr io.Writer) error {
	return prepareShardDir(dir, version, stderr)
}

func AgentModel(r *bench.Report) string { return agentModel(r) }
