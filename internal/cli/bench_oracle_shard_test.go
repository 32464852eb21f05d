package cli

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/internal/bench"
	"github.com/lantern-if/lantern/memory/rundb"
	"github.com/lantern-if/lantern/oracle"
)

// benchWithOracle runs lantern bench --json with the LLM agent against a
// fresh oracle (a fake Ollama playing the walkthrough), as a machine of its
// own would.
func benchWithOracle(t *testing.T, walk string, args ...string) bench.Report {
	t.Helper()
	cmds, err := oracle.LoadScript(walk)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(oracle.New(oracle.Options{Script: cmds}))
	defer srv.Close()
	t.Setenv("OLLAMA_HOST", strings.TrimPrefix(srv.URL, "http://"))
	return benchJSON(t, append([]string{"--model", "oracle"}, args...)...)
}

// TestBenchShardsWithOracle: the model-driven bench split in two, each
// shard against its own oracle, merges to the unsharded run's play: the
// same episodes, scores by turn, moves and endings.
func TestBenchShardsWithOracle(t *testing.T) {
	_, repo := isolate(t)
	walk := filepath.Join(repo, "game_files", "demo", "walkthrough.txt")
	common := []string{"--episodes", "3", "--max-turns", "12", "--seed", "12"}
	whole := benchWithOracle(t, walk, common...)
	one := benchWithOracle(t, walk, append(common, "--shard", "1/2")...)
	two := benchWithOracle(t, walk, append(common, "--shard", "2/2")...)
	code, out, stderr := runCLI(t, "", "bench", "merge", "--json", one.DB, two.DB)
	if code != exitOK {
		t.Fatalf("merge: exit %d\n%s", code, stderr)
	}
	merged := decodeReport(t, out)
	type play struct {
		Episode, Score, Moves, Turns int
		Ending                       string
		Scores                       []int
	}
	plays := func(r bench.Report) (out []play) {
		for _, e := range r.Episodes {
			out = append(out, play{e.Episode, e.Score, e.Moves, e.Turns, e.Ending, e.Scores})
		}
		return out
	}
	if got, want := plays(merged), plays(whole); !reflect.DeepEqual(got, want) || len(got) != 3 {
		t.Errorf("merged shards played differently from the whole run\n got %+v\nwant %+v", got, want)
	}
	mw, mm := whole.Summary[3], merged.Summary[3]
	if mw.Score != mm.Score || mw.BestScore != mm.BestScore || mw.Turns != mm.Turns || mw.Moves != mm.Moves || !reflect.DeepEqual(mw.Milestones, mm.Milestones) {
		t.Errorf("totals differ: whole %+v\nmerged %+v", mw, mm)
	}
	t.Logf("LLM calls per turn: whole %.2f, merged %.2f; location coverage: whole %.2f, merged %.2f",
		mw.LLMCallsPerTurn, mm.LLMCallsPerTurn, mw.LocationCoverage, mm.LocationCoverage)
}

// bench takes the server flags run takes: --api openai --base-url (the
// oracle's /v1) and --profile, and plays with them; its bench.json, the
// run stored in lantern.db and the CSV and JSON Lines exports carry the
// format version and how the run was made; its prompt tokens are one
// total, the same in every table.
func TestBenchTakesServerFlags(t *testing.T) {
	dir, repo := isolate(t)
	walk := filepath.Join(repo, "game_files", "demo", "walkthrough.txt")
	cmds, err := oracle.LoadScript(walk)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(oracle.New(oracle.Options{Script: cmds}))
	defer srv.Close()
	t.Setenv("OLLAMA_HOST", "127.0.0.1:9") // not the server the flags name
	export := filepath.Join(dir, "export")
	code, out, stderr := runCLI(t, "", "bench", "--json", "--api", "openai", "--base-url", srv.URL+"/v1", "--profile", "zorkgpt", "--model", "oracle",
		"--episodes", "1", "--max-turns", "6", "--export", export)
	if code != exitOK {
		t.Fatalf("bench: exit %d\n%s", code, stderr)
	}
	rep := decodeReport(t, out)
	if len(rep.Episodes) != 1 || rep.Episodes[0].Turns != 6 || rep.Summary[0].Score == 0 {
		t.Errorf("bench over --api openai played %+v", rep.Episodes)
	}
	if !strings.Contains(rep.Host, strings.TrimPrefix(srv.URL, "http://")) {
		t.Errorf("the report names the server %q, want %s", rep.Host, srv.URL)
	}
	base := srv.URL + "/v1"
	checkProvenance(t, "--json", rep.Format, rep.Provenance, base)

	// bench.json, in the run's own work dir, where stderr says.
	m := regexp.MustCompile(`report in (\S+)`).FindStringSubmatch(stderr)
	if m == nil || m[1] != filepath.Join(rep.WorkDir, "bench.json") {
		t.Fatalf("stderr does not say where bench.json is (want in %s):\n%s", rep.WorkDir, stderr)
	}
	data, err := os.ReadFile(m[1])
	if err != nil {
		t.Fatal(err)
	}
	if _, s, err := bench.Read(data); err != nil || s == nil || s.Format != bench.FormatVersion || len(s.Runs) != 1 {
		t.Fatalf("bench.json: %v, %+v", err, s)
	} else {
		checkProvenance(t, "bench.json", s.Runs[0].Format, s.Runs[0].Provenance, base)
	}

	// The run as lantern.db stores it: in its own database and in the
	// work dir's index.
	for _, path := range []string{rep.DB, rep.Index} {
		db, err := rundb.OpenRunDB(path, rep.StoryMD5)
		if err != nil {
			t.Fatal(err)
		}
		runs, err := db.BenchRuns(context.Background())
		if err != nil || len(runs) != 1 {
			t.Fatalf("%s: %d runs, %v", path, len(runs), err)
		}
		stored, err := storedReport(context.Background(), db, runs[0].ID)
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		checkProvenance(t, path, stored.Format, stored.Provenance, base)
	}

	// The exports: CSV and JSON Lines, each row with the format version,
	// an episode's with the provenance.
	csvRows := func(name string) []map[string]string {
		f, err := os.Open(filepath.Join(export, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		all, err := csv.NewReader(f).ReadAll()
		if err != nil || len(all) < 2 {
			t.Fatalf("%s: %d rows, %v", name, len(all), err)
		}
		var out []map[string]string
		for _, row := range all[1:] {
			m := map[string]string{}
			for i, h := range all[0] {
				m[h] = row[i]
			}
			out = append(out, m)
		}
		return out
	}
	jsonlRows := func(name string) []map[string]any {
		data, err := os.ReadFile(filepath.Join(export, name))
		if err != nil {
			t.Fatal(err)
		}
		var out []map[string]any
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			out = append(out, m)
		}
		return out
	}
	ep := csvRows("episodes.csv")[0]
	var roles []bench.RoleSetup
	if err := json.Unmarshal([]byte(ep["roles"]), &roles); err != nil || len(roles) != len(config.RoleNames()) {
		t.Errorf("episodes.csv's roles: %v, %d roles", err, len(roles))
	}
	want := map[string]string{"format_version": "2", "api": "openai", "base_url": base, "profile": "zorkgpt", "model_id": "oracle:latest",
		"model_quantization": "none", "model_parameter_size": "0B", "temperature": "0.6", "top_p": "0.95", "top_k": "20", "think": "auto", "stopped": "false"}
	for k, v := range want {
		if ep[k] != v {
			t.Errorf("episodes.csv: %s = %q, want %q", k, ep[k], v)
		}
	}
	if len(ep["model_digest"]) != 64 {
		t.Errorf("episodes.csv: model_digest %q", ep["model_digest"])
	}
	for _, row := range csvRows("turns.csv") {
		if row["format_version"] != "2" {
			t.Fatalf("turns.csv: row %v", row)
		}
	}
	ej := jsonlRows("episodes.jsonl")[0]
	if ej["format_version"] != 2.0 || ej["api"] != "openai" || ej["base_url"] != base || ej["profile"] != "zorkgpt" || ej["model_digest"] != ep["model_digest"] ||
		ej["temperature"] != 0.6 || len(ej["roles"].([]any)) != len(config.RoleNames()) || len(ej["model_identities"].([]any)) != 1 {
		t.Errorf("episodes.jsonl: %v", ej)
	}
	for _, row := range jsonlRows("turns.jsonl") {
		if row["format_version"] != 2.0 {
			t.Fatalf("turns.jsonl: row %v", row)
		}
	}

	// One token total: the run's, the per-role table's, a suite's games
	// and roles tables', the exported episodes', all the same; the
	// episode's end (its synthesis calls) counts in it.
	total := rep.PromptTokens()
	e := rep.Episodes[0]
	if e.EndCalls == 0 || e.EndPrompt == 0 {
		t.Errorf("the episode's end made %d calls of %d tokens: the test wants some", e.EndCalls, e.EndPrompt)
	}
	turns := float64(rep.Summary[len(rep.Summary)-1].Turns)
	all := rep.Roles[len(rep.Roles)-1]
	t.Logf("%d prompt tokens in %d calls: %d of the episode's end in %d calls, %d of no turn; by role %v", total, rep.Calls(), e.EndPrompt, e.EndCalls,
		rep.DroppedPrompt, rep.RolePrompt)
	if all.Role != "all" || rep.RolePrompt["all"] != total || int(math.Round(all.PromptPerTurn*turns)) != total || all.Calls != rep.Calls() {
		t.Errorf("the run's %d tokens in %d calls; the role table's all row %+v, counted %v", total, rep.Calls(), all, rep.RolePrompt)
	}
	suite := singleSuite(&rep, 1)
	var roleAll bench.RoleCost
	for _, r := range suite.Roles {
		if r.Role == "all" {
			roleAll = r
		}
	}
	if g := suite.Games[0]; g.PromptTokens != total || roleAll.PromptTokens != total || g.Calls != roleAll.Calls {
		t.Errorf("games table %d tokens in %d calls, roles table %d in %d, the run %d", g.PromptTokens, g.Calls, roleAll.PromptTokens, roleAll.Calls, total)
	}
	if n, err := strconv.Atoi(ep["prompt_tokens"]); err != nil || n+rep.DroppedPrompt != total {
		t.Errorf("episodes.csv's prompt tokens %q (+%d of no turn), want %d", ep["prompt_tokens"], rep.DroppedPrompt, total)
	}
	code, text, _ := runCLI(t, "", "bench", "--compare", m[1], m[1])
	if code != exitOK || !strings.Contains(text, "B - A") {
		t.Errorf("--compare of the run's bench.json with itself: exit %d\n%s", code, text)
	}
}

// checkProvenance: the format version, the protocol, server and profile
// the flags named, every role's sampling as configured, and the oracle's
// identity as its /v1/models and /api/tags give it.
func checkProvenance(t *testing.T, where string, format int, p *bench.Provenance, base string) {
	t.Helper()
	if format != bench.FormatVersion || p == nil {
		t.Fatalf("%s: format %d, provenance %v", where, format, p)
	}
	if p.API != config.APIOpenAI || p.BaseURL != base || p.Profile != config.ProfileZorkGPT || p.Settings["managers.supervisor_interval"] != "1" {
		t.Errorf("%s: api %q, base %q, profile %q, supervisor interval %q", where, p.API, p.BaseURL, p.Profile, p.Settings["managers.supervisor_interval"])
	}
	defaults := config.DefaultRoles()
	if len(p.Roles) != len(config.RoleNames()) {
		t.Fatalf("%s: %d roles", where, len(p.Roles))
	}
	for _, r := range p.Roles {
		d := defaults[r.Role]
		if r.Model != "oracle" || r.API != config.APIOpenAI || r.Temperature != d.Temperature || r.TopP != d.TopP || r.TopK != d.TopK ||
			r.Seed != d.Seed || r.NumPredict != d.NumPredict || r.NumCtx != d.NumCtx || r.Think != string(d.Think) || r.Timeout != d.Timeout.String() {
			t.Errorf("%s: role %+v, configured %+v", where, r, d)
		}
	}
	if len(p.Models) != 1 {
		t.Fatalf("%s: identities %+v", where, p.Models)
	}
	id := p.Models[0]
	if id.Model != "oracle" || id.API != config.APIOpenAI || id.Server != base || id.ID != "oracle:latest" || len(id.Digest) != 64 ||
		id.Quantization != "none" || id.Parameters != "0B" || id.Error != "" {
		t.Errorf("%s: the oracle's identity %+v", where, id)
	}
}
