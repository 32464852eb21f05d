package play_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/internal/bench"
	"github.com/lantern-if/lantern/internal/bench/play"
	"github.com/lantern-if/lantern/memory/rundb"
	"github.com/lantern-if/lantern/oracle"
)

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
	c := runBench(t, play.Options{JSON: true, Episodes: 1, Export: export},
		flags{"api": "openai", "base-url": srv.URL + "/v1", "profile": "zorkgpt", "model": "oracle", "max-turns": "6"})
	if c.err != nil {
		t.Fatalf("bench: %v\n%s", c.err, c.stderr)
	}
	rep := decodeReport(t, c.out)
	if len(rep.Episodes) != 1 || rep.Episodes[0].Turns != 6 || rep.Summary[0].Score == 0 {
		t.Errorf("bench over --api openai played %+v", rep.Episodes)
	}
	if !strings.Contains(rep.Host, strings.TrimPrefix(srv.URL, "http://")) {
		t.Errorf("the report names the server %q, want %s", rep.Host, srv.URL)
	}
	base := srv.URL + "/v1"
	checkProvenance(t, "--json", rep.Format, rep.Provenance, base)

	// bench.json, in the run's own work dir, where stderr says.
	m := regexp.MustCompile(`report in (\S+)`).FindStringSubmatch(c.stderr)
	if m == nil || m[1] != filepath.Join(rep.WorkDir, "bench.json") {
		t.Fatalf("stderr does not say where bench.json is (want in %s):\n%s", rep.WorkDir, c.stderr)
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
	checkStoredProvenance(t, rep, base)
	ep := checkExports(t, export, base)
	checkOneTokenTotal(t, rep, ep)
	if c := compare(t, m[1], m[1], false, nil); c.err != nil || !strings.Contains(c.out, "B - A") {
		t.Errorf("--compare of the run's bench.json with itself: %v\n%s", c.err, c.out)
	}
}

// checkStoredProvenance: the run as lantern.db stores it, in its own
// database and in the work dir's index, says how it was made.
func checkStoredProvenance(t *testing.T, rep bench.Report, base string) {
	t.Helper()
	for _, path := range []string{rep.DB, rep.Index} {
		db, err := rundb.OpenRunDB(path, rep.StoryMD5)
		if err != nil {
			t.Fatal(err)
		}
		runs, err := db.BenchRuns(context.Background())
		if err != nil || len(runs) != 1 {
			t.Fatalf("%s: %d runs, %v", path, len(runs), err)
		}
		stored, err := play.StoredReport(context.Background(), db, runs[0].ID)
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		checkProvenance(t, path, stored.Format, stored.Provenance, base)
	}
}

// csvRows reads an exported CSV file as rows by heading.
func csvRows(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	all, err := csv.NewReader(f).ReadAll()
	if err != nil || len(all) < 2 {
		t.Fatalf("%s: %d rows, %v", path, len(all), err)
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

// jsonlRows reads an exported JSON Lines file.
func jsonlRows(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, m)
	}
	return out
}

// checkExports: the CSV and JSON Lines exports, each row with the format
// version, an episode's with the provenance. It gives the episode's CSV
// row.
func checkExports(t *testing.T, export, base string) map[string]string {
	t.Helper()
	ep := csvRows(t, filepath.Join(export, "episodes.csv"))[0]
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
	for _, row := range csvRows(t, filepath.Join(export, "turns.csv")) {
		if row["format_version"] != "2" {
			t.Fatalf("turns.csv: row %v", row)
		}
	}
	ej := jsonlRows(t, filepath.Join(export, "episodes.jsonl"))[0]
	if ej["format_version"] != 2.0 || ej["api"] != "openai" || ej["base_url"] != base || ej["profile"] != "zorkgpt" || ej["model_digest"] != ep["model_digest"] ||
		ej["temperature"] != 0.6 || len(ej["roles"].([]any)) != len(config.RoleNames()) || len(ej["model_identities"].([]any)) != 1 {
		t.Errorf("episodes.jsonl: %v", ej)
	}
	for _, row := range jsonlRows(t, filepath.Join(export, "turns.jsonl")) {
		if row["format_version"] != 2.0 {
			t.Fatalf("turns.jsonl: row %v", row)
		}
	}
	return ep
}

// checkOneTokenTotal: one token total: the run's, the per-role table's, a
// suite's games and roles tables', the exported episodes', all the same;
// the episode's end (its synthesis calls) counts in it.
func checkOneTokenTotal(t *testing.T, rep bench.Report, ep map[string]string) {
	t.Helper()
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
	suite := play.SingleSuite(&rep, 1)
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

// TestBenchWritesReport: every single-story run writes bench.json and
// says where: in its fresh work dir; in the story's folder of a --workdir
// (which normal play may share, so a later shard there does not take it
// for its own); in a shard's work dir. Each reads back as the run, and
// --compare takes it (or the work dir holding it) beside a stored run.
func TestBenchWritesReport(t *testing.T) {
	dir, repo := isolate(t)
	walk := filepath.Join(repo, "game_files", "demo", "walkthrough.txt")
	common := play.Options{Agent: "script:" + walk, Episodes: 1, JSON: true}
	given, shard := filepath.Join(dir, "given"), filepath.Join(dir, "shard")
	twoShard := common
	twoShard.Shard, twoShard.Episodes = "1/2", 2
	tests := []struct {
		name  string
		o     play.Options
		f     flags
		where func(rep bench.Report) string // the folder bench.json must be in
	}{
		{"fresh work dir", common, flags{"max-turns": "5"}, func(rep bench.Report) string { return rep.WorkDir }},
		{"--workdir", common, flags{"max-turns": "5", "workdir": given}, func(bench.Report) string { return filepath.Join(given, "demo-r1") }},
		{"shard", twoShard, flags{"max-turns": "5", "workdir": shard}, func(bench.Report) string { return shard }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := runBench(t, tc.o, tc.f)
			if c.err != nil {
				t.Fatalf("%v\n%s", c.err, c.stderr)
			}
			rep := decodeReport(t, c.out)
			path := reportIn(t, c.stderr)
			if want := filepath.Join(tc.where(rep), "bench.json"); path != want {
				t.Errorf("bench.json in %s, want %s", path, want)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			_, s, err := bench.Read(data)
			if err != nil || s == nil || len(s.Runs) != 1 || s.Runs[0].StoryMD5 != rep.StoryMD5 || s.Runs[0].Provenance == nil ||
				s.Runs[0].Provenance.Profile != "lean" || s.Runs[0].Provenance.API != "" {
				t.Fatalf("bench.json: %v %+v", err, s)
			}
			if c := compare(t, filepath.Dir(path), "last", false, nil); c.err != nil || !strings.Contains(c.out, "B - A") {
				t.Errorf("--compare of the work dir with the last run: %v\n%s", c.err, c.out)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(given, "bench.json")); err == nil {
		t.Errorf("a --workdir run wrote bench.json at the work dir's top, where a shard would take the folder for its own")
	}
}
