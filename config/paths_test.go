package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPathsRelativeToTheirFile: work_dir, story and theme given as relative
// paths in a file are relative to that file's directory (the user's file
// and the project's alike); absolute paths stay, ~ is the home directory, a
// theme name is not a path, and values from the environment or a flag are
// not relative to any file.
func TestPathsRelativeToTheirFile(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string // relative to the test's dir
		user    string            // the user's file, relative to the test's dir
		project string            // the project's file, relative to the test's dir
		env     map[string]string
		flags   []Override
		want    map[string]string // "$DIR" is the test's dir
	}{
		{name: "project file in a sub-directory",
			files:   map[string]string{"sub/lantern.toml": "work_dir = \"data\"\nstory = \"stories/z.z3\"\ntheme = \"themes/t.toml\"\n", "sub/themes/t.toml": ""},
			project: "sub/lantern.toml",
			want:    map[string]string{"work_dir": "$DIR/sub/data", "story": "$DIR/sub/stories/z.z3", "theme": "$DIR/sub/themes/t.toml"}},
		{name: "dot and dot-dot are cleaned",
			files:   map[string]string{"a/b/lantern.toml": "work_dir = \"../w\"\nstory = \"./s.z3\"\n"},
			project: "a/b/lantern.toml",
			want:    map[string]string{"work_dir": "$DIR/a/w", "story": "$DIR/a/b/s.z3"}},
		{name: "user file relative to itself",
			files: map[string]string{"cfg/lantern/lantern.toml": "story = \"s.z3\"\nwork_dir = \"w\"\n", "cfg/lantern/s.z3": "", "proj/lantern.toml": "work_dir = \"pw\"\n"},
			user:  "cfg/lantern/lantern.toml", project: "proj/lantern.toml",
			want: map[string]string{"story": "$DIR/cfg/lantern/s.z3", "work_dir": "$DIR/proj/pw"}},
		{name: "absolute paths stay",
			files:   map[string]string{"sub/lantern.toml": "work_dir = \"/srv/lantern\"\nstory = \"/games/z.z3\"\n"},
			project: "sub/lantern.toml",
			want:    map[string]string{"work_dir": "/srv/lantern", "story": "/games/z.z3"}},
		{name: "tilde is the home directory",
			files:   map[string]string{"sub/lantern.toml": "work_dir = \"~\"\nstory = \"~/z/z.z3\"\n"},
			project: "sub/lantern.toml", env: map[string]string{"HOME": "/home/x"},
			want: map[string]string{"work_dir": "/home/x", "story": "/home/x/z/z.z3"}},
		{name: "a theme name is not a path",
			files:   map[string]string{"sub/lantern.toml": "theme = \"dark\"\n"},
			project: "sub/lantern.toml",
			want:    map[string]string{"theme": "dark"}},
		{name: "a bare story name with no file beside the configuration is left to the resolver",
			files:   map[string]string{"sub/lantern.toml": "story = \"zork1\"\n"},
			project: "sub/lantern.toml",
			want:    map[string]string{"story": "zork1"}},
		{name: "empty stays empty",
			files:   map[string]string{"sub/lantern.toml": "story = \"\"\n"},
			project: "sub/lantern.toml",
			want:    map[string]string{"story": ""}},
		{name: "environment and flags are not relative to a file",
			files:   map[string]string{"sub/lantern.toml": "story = \"file.z3\"\n"},
			project: "sub/lantern.toml", env: map[string]string{"LANTERN_WORK_DIR": "envdir"},
			flags: []Override{{Key: "story", Value: "flag.z3", Flag: "story"}},
			want:  map[string]string{"work_dir": "envdir", "story": "flag.z3"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tc.files {
				write(t, dir, name, content)
			}
			o := LoadOptions{Getenv: env(tc.env), Overrides: tc.flags}
			if tc.user != "" {
				o.UserFile = filepath.Join(dir, tc.user)
			}
			if tc.project != "" {
				o.ProjectFile = filepath.Join(dir, tc.project)
			}
			c, err := Load(o)
			if err != nil {
				t.Fatal(err)
			}
			for key, want := range tc.want {
				want = strings.ReplaceAll(want, "$DIR", dir)
				var got string
				switch key {
				case "work_dir":
					got = c.WorkDir
				case "story":
					got = c.Story
				case "theme":
					got = c.Theme
				}
				if got != filepath.FromSlash(want) {
					t.Errorf("%s = %q, want %q (from %v)", key, got, want, c.Sources[key])
				}
			}
		})
	}
}

// TestConfigFlagRelativeToWorkingDirectory: --config names a file relative
// to the working directory, and the paths in it are relative to that file.
func TestConfigFlagRelativeToWorkingDirectory(t *testing.T) {
	dir := t.TempDir()
	// Only this test's files and variables: no user file, no LANTERN_*.
	t.Setenv("HOME", dir)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "xdg"))
	t.Setenv("LANTERN_MODEL", "")
	t.Setenv("OLLAMA_HOST", "")
	for _, key := range KeyNames() {
		t.Setenv(EnvName(key), "") // empty counts as unset
	}
	write(t, dir, "proj/conf/lantern.toml", "work_dir = \"data\"\nstory = \"../games/z.z3\"\n")
	t.Chdir(filepath.Join(dir, "proj"))
	tests := []struct {
		name, config string
		wantWork     string
		wantStory    string
	}{
		{"relative --config", "conf/lantern.toml", filepath.Join("conf", "data"), filepath.Join("games", "z.z3")},
		{"./ --config", "./conf/lantern.toml", filepath.Join("conf", "data"), filepath.Join("games", "z.z3")},
		{"absolute --config", filepath.Join(dir, "proj", "conf", "lantern.toml"), filepath.Join(dir, "proj", "conf", "data"), filepath.Join(dir, "proj", "games", "z.z3")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load(Standard(tc.config))
			if err != nil {
				t.Fatal(err)
			}
			if c.WorkDir != tc.wantWork || c.Story != tc.wantStory {
				t.Errorf("work_dir %q story %q, want %q and %q", c.WorkDir, c.Story, tc.wantWork, tc.wantStory)
			}
			// Relative to the working directory, they name the same places
			// as the file's directory does.
			for _, p := range []string{c.WorkDir, c.Story} {
				abs, err := filepath.Abs(p)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.HasPrefix(abs, filepath.Join(dir, "proj")+string(os.PathSeparator)) {
					t.Errorf("%q resolves to %q, outside the project", p, abs)
				}
			}
		})
	}
}
