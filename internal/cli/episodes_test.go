package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// playDemo records one scripted episode of the demo in an isolated work
// dir: the first 30 steps of its walkthrough.
func playDemo(t *testing.T) string {
	t.Helper()
	dir, repo := isolate(t)
	data, err := os.ReadFile(filepath.Join(repo, "game_files", "demo", "walkthrough.txt"))
	if err != nil {
		t.Fatal(err)
	}
	walk := filepath.Join(dir, "walk.txt")
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if err := os.WriteFile(walk, []byte(strings.Join(lines[:30], "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, stderr := runCLI(t, "", "run", "--headless", "--agent", "script:"+walk, "--max-turns", "30"); code != exitOK {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, stderr)
	}
	return dir
}

func TestMapAndEpisodesOfAPlayedStory(t *testing.T) {
	dir := playDemo(t)
	code, out, stderr := runCLI(t, "", "map")
	if code != exitOK {
		t.Fatalf("map: exit %d: %s", code, stderr)
	}
	wantAll(t, "map --format text", out, "│Orchard", "Parlour", "Kitchen", "Hallway", "╔═", "Exits not drawn:", "enter window")
	code, out, _ = runCLI(t, "", "map", "--format", "mermaid")
	wantAll(t, "map --format mermaid", out, "graph TD", `["Orchard"]`, "-->|north|")
	if code != exitOK {
		t.Errorf("map --format mermaid: exit %d", code)
	}
	code, out, _ = runCLI(t, "", "map", "--format", "dot", "--episode", "1")
	wantAll(t, "map --format dot", out, "digraph map {", `[label="north"]`)
	if code != exitOK {
		t.Errorf("map --format dot: exit %d", code)
	}

	code, out, stderr = runCLI(t, "", "episodes", "list")
	if code != exitOK {
		t.Fatalf("episodes list: exit %d: %s", code, stderr)
	}
	wantAll(t, "episodes list", out, "LINE    ID  STARTED", "ENDING", "\n1/main  #1  ")
	code, alone, stderr := runCLI(t, "", "episodes")
	if code != exitOK || alone != out {
		t.Errorf("episodes alone: exit %d, %q (stderr %q); want the list %q", code, alone, stderr, out)
	}
	code, out, _ = runCLI(t, "", "episodes", "show")
	wantAll(t, "episodes show", out, `# Line 1/main (\#1) of demo`, "## Score over turns", "## Map", "### Turn 1 · agent › north", "**Critic**")
	if code != exitOK {
		t.Errorf("episodes show: exit %d", code)
	}
	page := filepath.Join(dir, "ep1.html")
	code, _, stderr = runCLI(t, "", "episodes", "export", "1", "--format", "html", "-o", page)
	if code != exitOK {
		t.Fatalf("episodes export: exit %d: %s", code, stderr)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	wantAll(t, "the HTML export", string(html), "<!DOCTYPE html>", `<svg id="score-chart"`, `<svg id="map"`, "Turn 30 · agent")
	code, out, _ = runCLI(t, "", "episodes", "export", "--format", "json")
	wantAll(t, "the JSON export", out, `"turns": [`, `"verdicts": [`, `"map": {`)
	if code != exitOK {
		t.Errorf("episodes export --format json: exit %d", code)
	}
}

func TestMapAndEpisodesErrors(t *testing.T) {
	isolate(t)
	tests := []struct {
		args     []string
		code     int
		inStderr string
	}{
		{[]string{"map", "--format", "svg"}, exitUsage, `unknown format "svg"`},
		{[]string{"map"}, exitError, "nothing recorded for demo.z3 yet"},
		{[]string{"episodes"}, exitError, "nothing recorded"},
		{[]string{"episodes", "drop"}, exitUsage, `unexpected "drop"`},
		{[]string{"episodes", "show", "x"}, exitUsage, `not a line of play: "x"`},
		{[]string{"episodes", "export", "--format", "pdf"}, exitUsage, `unknown format "pdf"`},
		{[]string{"episodes", "list"}, exitError, "nothing recorded"},
	}
	for _, tc := range tests {
		code, _, stderr := runCLI(t, "", tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.inStderr) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d with %q", tc.args, code, stderr, tc.code, tc.inStderr)
		}
	}
}

func TestEpisodeNotFound(t *testing.T) {
	playDemo(t)
	code, _, stderr := runCLI(t, "", "episodes", "show", "7")
	if code != exitError || !strings.Contains(stderr, "episode 7: no such line of play") {
		t.Errorf("episode 7: exit %d, %q", code, stderr)
	}
}

func TestMapAndEpisodesHelp(t *testing.T) {
	isolate(t)
	for _, args := range [][]string{{"map", "--help"}, {"episodes", "--help"}, {"episodes", "export", "--help"}} {
		code, out, stderr := runCLI(t, "", args...)
		if code != exitOK || !strings.Contains(out, "lantern "+args[0]) || !strings.Contains(out, "EXAMPLES") {
			t.Errorf("%v: exit %d\n%s%s", args, code, out, stderr)
		}
	}
}
