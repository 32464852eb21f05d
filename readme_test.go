package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// readmeSkips are the README's commands this test does not run, each with
// its reason: they open the TUI, reach the network, need Ollama with a
// real model, run until stopped, or need what such a command made.
var readmeSkips = map[string]string{
	"go install github.com/lantern-if/lantern@latest":               "network: fetches the module (the test builds the same binary from the clone)",
	"git clone https://github.com/lantern-if/lantern && cd lantern": "network: the test's copy of the working tree stands for the clone",
	"make run":                            "opens the TUI",
	"make test":                           "runs every test, this one included",
	"make check":                          "runs tests, this one among them",
	"scripts/ollama-test-server.sh start": "network: builds Ollama from the module proxy (make test runs it)",
	"export OLLAMA_HOST=127.0.0.1:PORT LANTERN_OLLAMA_E2E=1":                                              "names the test server's port (the line before)",
	"go test -race -run E2E ./...":                                                                        "needs the Ollama test server (make test runs it)",
	"scripts/ollama-test-server.sh stop":                                                                  "stops the test server",
	"lantern run --headless --story zork1 --model qwen3:4b --max-turns 100":                               "needs Ollama with qwen3:4b and zork1.z3",
	"lantern run --headless --json --review --model oracle < decisions.txt":                               "needs the oracle server (lantern oracle) and your decisions file",
	"lantern oracle --script game_files/demo/walkthrough.txt":                                             "a server: runs until stopped",
	"export OLLAMA_HOST=127.0.0.1:40125":                                                                  "names the oracle's port (printed by the server above)",
	"lantern --model oracle --seed 12":                                                                    "opens the TUI",
	"lantern run --headless --json --model oracle --seed 12":                                              "needs the oracle server above",
	"git clone --depth 1 https://github.com/historicalsource/zork1":                                       "network: fetches Zork I",
	"cp zork1/COMPILED/zork1.z3 ~/.local/share/lantern/":                                                  "needs the Zork I clone above",
	"lantern play --plain --story zork1":                                                                  "needs zork1.z3, copied above; interactive",
	"lantern bench --episodes 3 --max-turns 100 --model qwen3:4b":                                         "needs Ollama with qwen3:4b",
	"lantern bench --shard 1/2 --episodes 10 --model qwen3:4b --workdir A":                                "needs Ollama with qwen3:4b",
	"lantern bench --shard 2/2 --episodes 10 --model qwen3:4b --workdir B":                                "needs Ollama with qwen3:4b",
	"lantern bench merge A B":                                                                             "needs the shards' work dirs above",
	"lantern oracle --script ../shared/walkthroughs/zork1.txt --prompt-rate 2500 --gen-rate 60 --slots 1": "a server: runs until stopped (and reads the test data beside the clone)",
	"lantern run --headless --api openai --base-url http://127.0.0.1:8080/v1 --model qwen3-4b":            "needs an OpenAI-compatible server (llama-server) at 127.0.0.1:8080",
	"lantern bench --story games/ --agent script:walkthroughs/ --episodes 2":                              "needs your folders of stories and walkthroughs",
	"lantern bench --story zork1.z3 --story lostpig.z8 --model qwen3:4b,qwen3:8b --export out/":           "needs Ollama with two models and the two stories",
	"OUT=$PWD/shards sbatch --wait --array=0-3 scripts/bench-array.sbatch \\":                             "needs a Slurm cluster (make test submits to a real one-node Slurm)",
	"--story games/ --agent script:walkthroughs/ --episodes 5":                                            "the line before's arguments",
	"lantern bench merge --store --export results/ shards/shard-*":                                        "needs the shards the array wrote",
}

// readmeBuilds are the commands that compile Lantern: minutes on two
// cores, so they run only with LANTERN_README_BUILD=1; otherwise the test
// binary, which is Lantern built from the same tree (see TestMain), stands
// in for what they build: ./lantern is it, and `go run . ARGS` runs it
// with ARGS.
var readmeBuilds = map[string]bool{
	"make build": true,
	"go run . play --plain --seed 12 --story game_files/demo/demo.z3": true,
}

// TestMain makes the test binary Lantern itself when LANTERN_TEST_AS_MAIN=1, so the
// README's commands run without compiling it again.
func TestMain(m *testing.M) {
	if os.Getenv(asMain) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const asMain = "LANTERN_TEST_AS_MAIN"

// readmeExits are the commands expected to exit other than 0, and why:
// no model server is reachable here, and doctor reports it with a fix.
var readmeExits = map[string]int{"lantern doctor": 1, "./lantern doctor": 1}

// readmeSays is what a command's output must hold when it exits other
// than 0: the reason it was expected to.
var readmeSays = map[string]string{"lantern doctor": "127.0.0.1:9", "./lantern doctor": "127.0.0.1:9"}

// readmeCommands are the lines of the README's sh code blocks (comments
// dropped). Blocks fenced otherwise are screens, synopses, configuration
// or output, not commands.
func readmeCommands(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	in := false
	for _, l := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(l, "```"):
			in = !in && strings.TrimSpace(strings.TrimPrefix(l, "```")) == "sh"
		case in:
			cmd := strings.TrimSpace(regexp.MustCompile(`(^|\s)#.*$`).ReplaceAllString(l, ""))
			if cmd != "" {
				out = append(out, cmd)
			}
		}
	}
	return out
}

// TestReadmeCommandsRun runs every command of the README's sh blocks that
// needs no network, no model and no terminal, as written, in order, in a
// copy of the working tree's files (what a fresh clone holds), with the
// binary that `go install` would put on the PATH, a home of its own and
// no model server.
func TestReadmeCommandsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds lantern and runs the README's commands")
	}
	cmds := readmeCommands(t)
	if len(cmds) < 20 {
		t.Fatalf("only %d commands found in the README's sh blocks", len(cmds))
	}
	inReadme := map[string]bool{}
	for _, c := range cmds {
		inReadme[c] = true
	}
	for c := range readmeSkips {
		if !inReadme[c] {
			t.Errorf("the skip list names %q, which the README no longer has", c)
		}
	}
	root := t.TempDir()
	clone, bin, home := filepath.Join(root, "lantern"), filepath.Join(root, "bin"), filepath.Join(root, "home")
	copyWorkingTree(t, clone)
	for _, d := range []string{bin, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	goEnv := func(k string) string {
		out, err := exec.Command("go", "env", k).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	env := []string{
		"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"GOCACHE=" + goEnv("GOCACHE"), "GOMODCACHE=" + goEnv("GOMODCACHE"), "GOPATH=" + goEnv("GOPATH"), "GOPROXY=off", "GOFLAGS=-mod=mod",
		"OLLAMA_HOST=127.0.0.1:9", // nothing listens there
		"TERM=dumb",
	}
	build := os.Getenv("LANTERN_README_BUILD") == "1"
	if build {
		c := exec.Command("go", "build", "-o", filepath.Join(bin, "lantern"), ".")
		c.Dir, c.Env = clone, env
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
	} else {
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		for _, link := range []string{filepath.Join(bin, "lantern"), filepath.Join(clone, "lantern")} {
			if err := os.Symlink(self, link); err != nil {
				t.Fatal(err)
			}
		}
		env = append(env, asMain+"=1")
	}
	ran := 0
	for _, cmd := range cmds {
		if why, skip := readmeSkips[cmd]; skip {
			t.Logf("skipped %q: %s", cmd, why)
			continue
		}
		run := cmd
		if readmeBuilds[cmd] && !build {
			if !strings.HasPrefix(cmd, "go run . ") {
				t.Logf("skipped %q: compiles Lantern (LANTERN_README_BUILD=1 runs it); the test binary is ./lantern", cmd)
				continue
			}
			run = "lantern " + strings.TrimPrefix(cmd, "go run . ")
		}
		ran++
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		c := exec.CommandContext(ctx, "sh", "-c", run)
		c.Dir, c.Env, c.Stdin = clone, env, strings.NewReader("")
		var out bytes.Buffer
		c.Stdout, c.Stderr = &out, &out
		err := c.Run()
		cancel()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Errorf("%s: %v", cmd, err)
			continue
		}
		if want := readmeExits[cmd]; code != want {
			t.Errorf("%s: exit %d, want %d\n%s", run, code, want, tail(out.String(), 1500))
		} else if says := readmeSays[cmd]; !strings.Contains(out.String(), says) {
			t.Errorf("%s: exit %d without saying %q\n%s", run, code, says, tail(out.String(), 1500))
		}
		t.Logf("ran %q: exit %d in %v", run, code, time.Since(start).Round(time.Millisecond))
	}
	t.Logf("%d of %d README commands run, %d skipped with a reason", ran, len(cmds), len(cmds)-ran)
}

// copyWorkingTree copies the files git tracks, and the new ones it does
// not ignore, to dir: what a clone of this tree holds.
func copyWorkingTree(t *testing.T, dir string) {
	t.Helper()
	out, err := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		fi, err := os.Lstat(f)
		if err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the working tree, or a link
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
