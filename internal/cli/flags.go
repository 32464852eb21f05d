package cli

import "github.com/spf13/pflag"

// The flags several commands share, defined once. A flag that sets a
// configuration key (flagKeys) overrides it only when given; loadConfig
// applies the ones a command names. --config is persistent on the root
// (newRoot).

// sessionFlags are the flags of the commands that open a session: --story,
// --workdir, --model, --seed and --profile.
func sessionFlags(fs *pflag.FlagSet) {
	fs.String("story", "", "story file (default: story in the configuration, else the built-in demo)")
	fs.String("workdir", "", "work dir, one folder per story inside (default: work_dir, else $XDG_DATA_HOME/lantern)")
	fs.String("model", "", "model for every role (default: the configured ones)")
	fs.Int("seed", 0, "random seed (frotz -s semantics); episode n uses seed+n-1 (default: loop.seed)")
	fs.String("profile", "", "the managers' cadence: lean or zorkgpt (default: profile, else lean)")
	serverFlags(fs)
}

// serverFlags are the flags that choose the model server's protocol and
// URL: --api and --base-url.
func serverFlags(fs *pflag.FlagSet) {
	fs.String("api", "", `model server protocol: "ollama" or "openai" (llama.cpp, LM Studio, vLLM, Ollama's /v1) (default: server.api)`)
	fs.String("base-url", "", `model server URL, for "openai" the base of /chat/completions, e.g. http://127.0.0.1:8080/v1 (default: server.base_url, else the Ollama host)`)
}

// episodeFlags are the flags of the commands that play episodes headless.
func episodeFlags(fs *pflag.FlagSet, episodes int) *int {
	fs.Int("max-turns", 500, "turns per episode (default: loop.max_turns_per_episode)")
	return fs.Int("episodes", episodes, "episodes to play")
}

// storyFlags are the flags of the commands that read what the work dir
// keeps of a story: --story, its usage naming what of the story is read,
// and --workdir.
func storyFlags(fs *pflag.FlagSet, storyUsage string) {
	fs.String("story", "", storyUsage)
	fs.String("workdir", "", "work dir (default: the configured one)")
}
