package cli

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/internal/logfile"
	"github.com/lantern-if/lantern/llm"
)

// logLevelUsage is the --log-level flag's help.
const logLevelUsage = "log level: debug, info, warn or error (default: $LANTERN_LOG, else info); the log is lantern.log in the work dir"

// commandLog opens the work dir's lantern.log for a command at the level
// from --log-level, else $LANTERN_LOG, else info; every line carries the
// command. The file is capped (one rotation, lantern.log.1).
func commandLog(cmd, workDir, levelFlag string, cfg *config.Config) (*slog.Logger, func(), error) {
	level, err := logfile.Level(levelFlag, os.LookupEnv)
	if err != nil {
		return nil, nil, usageError(err)
	}
	if err := os.MkdirAll(workDir, 0o755); err != nil {
		return nil, nil, unusableWorkDir(workDir, err)
	}
	log, c, err := logfile.New(filepath.Join(workDir, "lantern.log"), level, logfile.DefaultMaxBytes)
	if err != nil {
		return nil, nil, unusableWorkDir(workDir, err)
	}
	log = log.With("cmd", cmd)
	log.Info("start", "version", version(), "pid", os.Getpid(), "workdir", workDir, "level", level.String())
	if cfg != nil {
		for _, f := range cfg.Files {
			log.Debug("config", "level", f.Level, "file", f.Path, "found", f.Found)
		}
		for _, w := range cfg.Warnings {
			log.Warn("config", "problem", w.String())
		}
	}
	return log, func() { c.Close() }, nil
}

// unusableWorkDir is the failure of a work dir Lantern cannot write in (a
// read-only mount, no permission, a file in its place): a runtime fault
// (exit 1) that names the dir and the cause, never a usage error.
func unusableWorkDir(dir string, err error) error {
	return fmt.Errorf("the work dir %s cannot be used: %w (choose another with --workdir or work_dir)", clip(dir), err)
}

// newClientLog makes the model client the configuration describes, with
// the client's own log lines (retries, schema mismatches, reachability) in
// the command's log (nil: none).
func newClientLog(cfg *config.Config, onCall func(llm.CallMetrics), log *slog.Logger) (*llm.Client, error) {
	// The server's parallel slots, when its environment is ours, tell how
	// many prompt caches it keeps (for the cache share in the metrics).
	slots := parallelSlots(os.Getenv)
	multi, _ := strconv.ParseBool(os.Getenv("OLLAMA_MULTIUSER_CACHE"))
	return llm.New(llm.Options{Host: cfg.Ollama.Host, Server: cfg.Server, Roles: cfg.Roles, OnCall: onCall, Logger: log, MaxReplyBytes: cfg.Ollama.MaxReplyKB << 10,
		CacheSlots: slots, MultiUserCache: multi})
}
