// Package play is `lantern bench`'s work: it plays a benchmark (one
// story's episodes, a suite of stories and models, a shard of either, its
// episodes spread over several model hosts), joins shards into one report
// (Merge), sets two runs or suites side by side (Compare) and lists the
// stored runs (List). It writes what a bench writes: bench.json, the run's
// rows in lantern.db, the CSV and JSON Lines exports.
//
// The command line parses the flags into Options and calls one entry
// point; what Lantern does the same way for every command (find and load
// a story, make the model client, open a session, ask which hosts answer)
// it lends through Wiring, so a bench session is the one the TUI and
// lantern run open.
package play

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/sanitize"
	"github.com/lantern-if/lantern/zmachine"
)

// Story is an opened story: the machine's image, the file it was read
// from (its name for saves and the work dir) and its binding (nil: none).
type Story struct {
	Story   *zmachine.Story
	Name    string
	Binding *env.Binding
}

// Wiring is what the command line lends the bench: every field is
// required by the entry points that play (Run, Suite); Compare and List
// need OpenStory, Merge none.
type Wiring struct {
	// Version is Lantern's, as reports record it.
	Version string
	// Config loads the configuration with the command's flags, --story and
	// --model replaced by story and model ("": not given).
	Config func(story, model string) (*config.Config, error)
	// OpenStory finds and loads a story by name ("": the built-in demo)
	// and gives the file it was read from.
	OpenStory func(path, workDir string) (*zmachine.Story, string, error)
	// LoadStory loads a story file as it is.
	LoadStory func(path string) (*zmachine.Story, error)
	// StoryExts are the endings (without the dot) of story files.
	StoryExts []string
	// Agent is the agent --agent names: nil for llm.
	Agent func(spec string) (engine.Agent, error)
	// Client makes the model client, each call observed by onCall.
	Client func(cfg *config.Config, onCall func(llm.CallMetrics), log *slog.Logger) (*llm.Client, error)
	// Session opens a session of episodes (client nil: no model; agent
	// nil: the model agent).
	Session func(cfg *config.Config, st Story, client *llm.Client, agent engine.Agent, episodes int) (*session.Session, error)
	// LiveHosts is the global server list's hosts that answer (nil with
	// fewer than two), each one that does not named on stderr.
	LiveHosts func(ctx context.Context, cfg *config.Config, stderr io.Writer) ([]string, error)
	// PinHost is cfg with every request sent to host.
	PinHost func(cfg *config.Config, host string) *config.Config
}

// Options are a benchmark's, as lantern bench's flags give them.
type Options struct {
	Wiring Wiring
	// Config is a single story's run's configuration (Run); a suite loads
	// each story and model's through Wiring.Config.
	Config *config.Config
	// Stories are a suite's --story values (files, folders, "demo"; none:
	// the configured story), Models its sweep (none: the configured
	// model), SeedFile its seeds by story.
	Stories  []string
	Models   []string
	SeedFile string
	Episodes int
	Agent    string // llm, script:FILE, or script:DIR (DIR/<story>.txt)
	Label    string // "": the model, or the script
	ModelSet bool   // --model was given (a script agent asks the model too)
	JSON     bool
	Width    int    // the chart's
	Shard    string // i/n or auto; "": the whole run
	// WorkdirSet: --workdir was given, so the run plays there rather than
	// in a fresh work dir.
	WorkdirSet bool
	Export     string // a folder for the CSV and JSON Lines ("": none)
	Log        *slog.Logger
	Stdout     io.Writer
	Stderr     io.Writer

	// playDir, when set, is where the run plays (a suite's work dir): no
	// fresh dir, no index entry.
	playDir string
}

// Exit codes of the plays inside the wing; an entry point turns them
// into an error.
const (
	exitOK    = 0
	exitError = 1
)

// ErrFailed is a bench that failed and has said why on stderr.
var ErrFailed = errors.New("lantern bench failed")

// UsageError is a bench refused for its flags or arguments.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usagef(format string, a ...any) error {
	return &UsageError{fmt.Errorf(format, a...)}
}

// done is an entry point's error for a play's exit code.
func done(code int) error {
	if code == exitOK {
		return nil
	}
	return ErrFailed
}

// manifestName is a run's or a suite's report in its work dir.
const manifestName = "bench.json"

// maxReportBytes bounds the report files a bench reads (bench.json, a
// --json report, a seed file).
const maxReportBytes = 256 << 20

// errText is an error as one line of stderr.
func errText(err error) string { return sanitize.Line(sanitize.Clip(err.Error(), 4096)) }

// printJSON writes v as indented JSON, C1 controls escaped.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(sanitize.NewJSONWriter(w))
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return ErrFailed
	}
	return nil
}

// IsDir reports whether path names a folder.
func IsDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
