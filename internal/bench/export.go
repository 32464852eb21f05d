package bench

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
)

// The bench's exports for analysis elsewhere: one row per episode and one
// per turn, as CSV (a header line, then the rows) or JSON Lines (one object
// a line, the same fields). Every row names its story (file and md5),
// model, episode and seed, so rows of several runs can be stacked. No
// column depends on the clock except the last (harness time per turn).

// EpisodeRow is one episode of an export.
type EpisodeRow struct {
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
	PromptTokens int      `json:"prompt_tokens"`
	Errors       int      `json:"llm_errors"`
}

// TurnRow is one turn of an export.
type TurnRow struct {
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
			row := EpisodeRow{Story: r.Story, StoryMD5: r.StoryMD5, Model: runModel(r), Agent: r.Agent, Label: r.Label, Lantern: lantern,
				Episode: e.Episode, Seed: r.EpisodeSeed(e), Ending: e.Ending, Score: e.Score, MaxScore: r.MaxScore, Highscore: Highscore(e),
				Moves: e.Moves, Turns: e.Turns, Deaths: e.Deaths, Calls: sum(e.Calls) + e.EndCalls, PromptTokens: sum(e.Prompt), Errors: e.Errors}
			if n := r.Normalized(e); !math.IsNaN(n) {
				row.Normalized = &n
			}
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
				row := TurnRow{Story: r.Story, StoryMD5: r.StoryMD5, Model: runModel(r), Episode: e.Episode, Seed: r.EpisodeSeed(e), Turn: i + 1, Score: s}
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

// WriteJSONL writes rows one JSON object a line.
func WriteJSONL[T any](w io.Writer, rows []T) error {
	enc := json.NewEncoder(w)
	for _, r := range rows {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
}

// WriteEpisodesCSV writes the episode rows as CSV.
func WriteEpisodesCSV(w io.Writer, rows []EpisodeRow) error {
	c := csv.NewWriter(w)
	c.Write([]string{"story", "story_md5", "model", "agent", "label", "lantern_version", "episode", "seed", "ending", "score", "max_score",
		"normalized_score", "highscore", "moves", "turns", "deaths", "llm_calls", "prompt_tokens", "llm_errors"})
	for _, r := range rows {
		norm := ""
		if r.Normalized != nil {
			norm = strconv.FormatFloat(*r.Normalized, 'g', -1, 64)
		}
		c.Write([]string{r.Story, r.StoryMD5, r.Model, r.Agent, r.Label, r.Lantern, itoa(r.Episode), itoa(r.Seed), r.Ending, itoa(r.Score), itoa(r.MaxScore),
			norm, itoa(r.Highscore), itoa(r.Moves), itoa(r.Turns), itoa(r.Deaths), itoa(r.Calls), itoa(r.PromptTokens), itoa(r.Errors)})
	}
	c.Flush()
	return c.Error()
}

// WriteTurnsCSV writes the turn rows as CSV.
func WriteTurnsCSV(w io.Writer, rows []TurnRow) error {
	c := csv.NewWriter(w)
	c.Write([]string{"story", "story_md5", "model", "episode", "seed", "turn", "score", "llm_calls", "prompt_tokens", "harness_us"})
	for _, r := range rows {
		c.Write([]string{r.Story, r.StoryMD5, r.Model, itoa(r.Episode), itoa(r.Seed), itoa(r.Turn), itoa(r.Score), itoa(r.Calls), itoa(r.PromptTokens),
			fmt.Sprint(r.HarnessUS)})
	}
	c.Flush()
	return c.Error()
}

func itoa(n int) string { return strconv.Itoa(n) }
