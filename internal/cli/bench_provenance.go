package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/internal/bench"
	"github.com/lantern-if/lantern/llm"
)

// A run's provenance (how it was made: the protocol, server, profile,
// roles' sampling, what the server says each model is, the settings) and
// its bench.json, which every run writes.

// benchProvenance records how a run is made: the configuration's profile
// and settings, and with a model the roles' setup, the server and what it
// says each model is (asked within ten seconds; a server that does not
// answer leaves the identities' errors, not the run's).
func benchProvenance(ctx context.Context, cfg *config.Config, client *llm.Client) *bench.Provenance {
	p := bench.NewProvenance(cfg, client != nil)
	if client == nil {
		return p
	}
	tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	p.SetServer(client.API(), client.ServerURL(), client.Hosts(), client.ModelIdentities(tctx))
	return p
}

// writeRunManifest writes a single story's run as bench.json (a suite of
// one run, as bench merge and --compare read it): in the run's own work
// dir (a fresh one, or a shard's), else, with --workdir (a work dir that
// normal play may share), in the story's folder there, replacing the last
// run's. It says where on stderr.
func writeRunManifest(rep *bench.Report, o benchOptions, shardDir bool, stderr io.Writer) error {
	dir := rep.WorkDir
	if o.workdirSet && !shardDir && rep.DB != "" {
		dir = filepath.Dir(rep.DB)
	}
	if err := writeSuiteManifest(dir, singleSuite(rep, o.episodes)); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "lantern bench: report in %s\n", filepath.Join(dir, manifestName))
	return nil
}
