package bench

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/lantern-if/lantern/sanitize"
)

// The bench's exports for analysis elsewhere: one row per episode and one
// per turn, as CSV (a header line, then the rows) or JSON Lines (one object
// a line, the same fields). Every row starts with the format version
// (FormatVersion) and names its story (file and md5), model, episode and
// seed, so rows of several runs can be stacked; an episode's row adds how
// the run was made (Provenance: the protocol, server, profile, the agent's
// model identity and sampling, and every role's setup, which CSV writes as
// JSON). No column depends on the clock except the turns' harness time.

// EpisodeRow is one episode of an export.
type EpisodeRow struct {
	Format       int      `json:"format_version"`
	Story        string   `json:"story"`
	StoryMD5     string   `json:"story_md5"`
	Model        string   `json:"model"`
	Agent        string   `json:"agent"`
	Label        string   `json:"label"`
	Lantern      string   `json:"lantern_version"`
	Episode      int      `json:"episode"`
	Seed         int      `json:"seed"`
	Ending       string   `json:"ending"`
	Score        int      `json:"score"`
	MaxScore     int      `json:"max_score"`
	Normalized   *float64 `json:"normalized_score"`
	Highscore    int      `json:"highscore"`
	Moves        int      `json:"moves"`
	Turns        int      `json:"turns"`
	Deaths       int      `json:"deaths"`
	Calls        int      `json:"llm_calls"`
	PromptTokens int      `json:"prompt_tokens"` // every call of the episode (its end's too), as Report.PromptTokens counts
	Errors       int      `json:"llm_errors"`
	// Stopped: a stop cut the episode short (see Stopped); the reports'
	// means leave it out.
	Stopped bool `json:"stopped"`
	// How the run was made: the global server's protocol and URL, the
	// profile, what the server said the agent's model is, and the agent
	// role's sampling (null when no model played).
	API               string   `json:"api"`
	BaseURL           string   `json:"base_url"`
	Profile           string   `json:"profile"`
	ModelID           string   `json:"model_id"`
	ModelDigest       string   `json:"model_digest"`
	ModelParameters   string   `json:"model_parameter_size"`
	ModelQuantization string   `json:"model_quantization"`
	Temperature       *float64 `json:"temperature"`
	TopP              *float64 `json:"top_p"`
	TopK              *int     `json:"top_k"`
	MinP              *float64 `json:"min_p"`
	RepeatPenalty     *float64 `json:"repeat_penalty"`
	SamplingSeed      *int     `json:"sampling_seed"`
	NumPredict        *int     `json:"num_predict"`
	NumCtx            *int     `json:"num_ctx"`
	KeepAlive         string   `json:"keep_alive"`
	Think             string   `json:"think"`
	// Roles is every role's setup; Identities what each server said each
	// model is.
	Roles      []RoleSetup     `json:"roles"`
	Identities []ModelIdentity `json:"model_identities"`
}

// TurnRow is one turn of an export.
type TurnRow struct {
	Format       int    `json:"format_version"`
	Story        string `json:"story"`
	StoryMD5     string `json:"story_md5"`
	Model        string `json:"model"`
	Episode      int    `json:"episode"`
	Seed         int    `json:"seed"`
	Turn         int    `json:"turn"`
	Score        int    `json:"score"`
	Calls        int    `json:"llm_calls"`
	PromptTokens int    `json:"prompt_tokens"`
	HarnessUS    int64  `json:"harness_us"`
}

// EpisodeRows lists the episodes of runs.
func EpisodeRows(lantern string, runs []*Report) []EpisodeRow {
	var out []EpisodeRow
	for _, r := range runs {
		for _, e := range r.Episodes {
			row := EpisodeRow{Format: FormatVersion, Story: r.Story, StoryMD5: r.StoryMD5, Model: runModel(r), Agent: r.Agent, Label: r.Label, Lantern: lantern,
				Episode: e.Episode, Seed: r.EpisodeSeed(e), Ending: e.Ending, Score: e.Score, MaxScore: r.MaxScore, Highscore: Highscore(e),
				Moves: e.Moves, Turns: e.Turns, Deaths: e.Deaths, Calls: sum(e.Calls) + e.EndCalls, PromptTokens: sum(e.Prompt) + e.EndPrompt,
				Errors: e.Errors, Stopped: Stopped(e)}
			if n := r.Normalized(e); !math.IsNaN(n) {
				row.Normalized = &n
			}
			row.setProvenance(r)
			out = append(out, row)
		}
	}
	return out
}

// TurnRows lists the turns of runs.
func TurnRows(runs []*Report) []TurnRow {
	var out []TurnRow
	for _, r := range runs {
		for _, e := range r.Episodes {
			for i, s := range e.Scores {
				row := TurnRow{Format: FormatVersion, Story: r.Story, StoryMD5: r.StoryMD5, Model: runModel(r), Episode: e.Episode, Seed: r.EpisodeSeed(e), Turn: i + 1, Score: s}
				if i < len(e.Calls) {
					row.Calls = e.Calls[i]
				}
				if i < len(e.Prompt) {
					row.PromptTokens = e.Prompt[i]
				}
				if i < len(e.HarnessUS) {
					row.HarnessUS = e.HarnessUS[i]
				}
				out = append(out, row)
			}
		}
	}
	return out
}

// setProvenance fills in how the run was made.
func (row *EpisodeRow) setProvenance(r *Report) {
	p := r.Provenance
	if p == nil {
		return
	}
	row.API, row.BaseURL, row.Profile, row.Roles, row.Identities = p.API, p.BaseURL, p.Profile, p.Roles, p.Models
	if id, ok := p.Identity(row.Model); ok {
		row.ModelID, row.ModelDigest, row.ModelParameters, row.ModelQuantization = id.ID, id.Digest, id.Parameters, id.Quantization
	}
	a, ok := p.Role("agent")
	if !ok {
		return
	}
	row.Temperature, row.TopP, row.TopK, row.MinP, row.RepeatPenalty = &a.Temperature, &a.TopP, &a.TopK, &a.MinP, &a.RepeatPenalty
	row.SamplingSeed, row.NumPredict, row.NumCtx, row.KeepAlive, row.Think = &a.Seed, &a.NumPredict, &a.NumCtx, a.KeepAlive, a.Think
}

// WriteJSONL writes rows one JSON object a line, C1 controls escaped
// as \u00XX like C0 (sanitize.NewJSONWriter): a file for people, whose
// model names and labels may come from a server.
func WriteJSONL[T any](w io.Writer, rows []T) error {
	enc := json.NewEncoder(sanitize.NewJSONWriter(w))
	for _, r := range rows {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
}

// csvWriter writes CSV records with the controls of every field
// neutralised (sanitize.Line): a file for people.
type csvWriter struct{ *csv.Writer }

func newCSV(w io.Writer) csvWriter { return csvWriter{csv.NewWriter(w)} }

func (c csvWriter) Write(fields []string) {
	for i, f := range fields {
		fields[i] = sanitize.Line(f)
	}
	c.Writer.Write(fields)
}

// WriteEpisodesCSV writes the episode rows as CSV.
func WriteEpisodesCSV(w io.Writer, rows []EpisodeRow) error {
	c := newCSV(w)
	c.Write([]string{"format_version", "story", "story_md5", "model", "agent", "label", "lantern_version", "episode", "seed", "ending", "score", "max_score",
		"normalized_score", "highscore", "moves", "turns", "deaths", "llm_calls", "prompt_tokens", "llm_errors", "stopped",
		"api", "base_url", "profile", "model_id", "model_digest", "model_parameter_size", "model_quantization",
		"temperature", "top_p", "top_k", "min_p", "repeat_penalty", "sampling_seed", "num_predict", "num_ctx", "keep_alive", "think",
		"roles", "model_identities"})
	for _, r := range rows {
		roles, ids := "", ""
		if r.Roles != nil {
			roles = jsonText(r.Roles)
		}
		if r.Identities != nil {
			ids = jsonText(r.Identities)
		}
		c.Write([]string{itoa(r.Format), r.Story, r.StoryMD5, r.Model, r.Agent, r.Label, r.Lantern, itoa(r.Episode), itoa(r.Seed), r.Ending, itoa(r.Score),
			itoa(r.MaxScore), floatText(r.Normalized), itoa(r.Highscore), itoa(r.Moves), itoa(r.Turns), itoa(r.Deaths), itoa(r.Calls), itoa(r.PromptTokens),
			itoa(r.Errors), strconv.FormatBool(r.Stopped),
			r.API, r.BaseURL, r.Profile, r.ModelID, r.ModelDigest, r.ModelParameters, r.ModelQuantization,
			floatText(r.Temperature), floatText(r.TopP), intText(r.TopK), floatText(r.MinP), floatText(r.RepeatPenalty), intText(r.SamplingSeed),
			intText(r.NumPredict), intText(r.NumCtx), r.KeepAlive, r.Think, roles, ids})
	}
	c.Flush()
	return c.Error()
}

// WriteTurnsCSV writes the turn rows as CSV.
func WriteTurnsCSV(w io.Writer, rows []TurnRow) error {
	c := newCSV(w)
	c.Write([]string{"format_version", "story", "story_md5", "model", "episode", "seed", "turn", "score", "llm_calls", "prompt_tokens", "harness_us"})
	for _, r := range rows {
		c.Write([]string{itoa(r.Format), r.Story, r.StoryMD5, r.Model, itoa(r.Episode), itoa(r.Seed), itoa(r.Turn), itoa(r.Score), itoa(r.Calls), itoa(r.PromptTokens),
			fmt.Sprint(r.HarnessUS)})
	}
	c.Flush()
	return c.Error()
}

func itoa(n int) string { return strconv.Itoa(n) }

// floatText and intText write an optional number ("" for none).
func floatText(x *float64) string {
	if x == nil {
		return ""
	}
	return strconv.FormatFloat(*x, 'g', -1, 64)
}

func intText(n *int) string {
	if n == nil {
		return ""
	}
	return itoa(*n)
}
