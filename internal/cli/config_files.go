package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/lantern-if/lantern/atomicfile"
	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/themes"
)

// configOptions are the standard configuration sources with the theme
// checked as the TUI loads it, so config check and doctor refuse what the
// TUI would.
func configOptions(configFile string, ov ...config.Override) config.LoadOptions {
	o := config.Standard(configFile, ov...)
	o.CheckTheme = checkTheme
	return o
}

// checkTheme is the TUI's own theme loading.
func checkTheme(name string) error {
	_, err := themes.Load(name)
	return err
}

// configFileTarget is the file config init and edit work on: the user's
// file, or with project set ./lantern.toml (or the --config file).
func configFileTarget(project bool, configFile string) string {
	if configFile != "" {
		return configFile
	}
	if project {
		return config.ProjectFile
	}
	return config.UserFile(os.LookupEnv)
}

// configPath prints where the configuration files are looked for.
func configPath(stdout io.Writer, configFile string) int {
	o := config.Standard(configFile)
	user := o.UserFile
	if user == "" {
		user = "(none: no HOME, XDG_CONFIG_HOME or AppData)"
	}
	fmt.Fprintf(stdout, "user:    %s\nproject: %s\n", user, o.ProjectFile)
	return exitOK
}

// configInit writes the commented sample as a new configuration file.
func configInit(stdout, stderr io.Writer, path, sample string, force bool) int {
	if err := config.Init(path, []byte(sample), force); err != nil {
		fmt.Fprintf(stderr, "lantern config: %v\n", err)
		if errors.Is(err, config.ErrExists) {
			return exitUsage
		}
		return exitError
	}
	fmt.Fprintf(stdout, "wrote %s\n", path)
	return exitOK
}

// configEdit opens the file in the person's editor (writing the sample
// first when there is none) and checks it afterwards.
func configEdit(stdout, stderr io.Writer, path, sample string) int {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		if code := configInit(stdout, stderr, path, sample, false); code != exitOK {
			return code
		}
	}
	ed := config.Editor(os.LookupEnv)
	cmd := exec.Command(ed[0], append(ed[1:], path)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(stderr, "lantern config edit: %s: %v\n", ed[0], err)
		return exitError
	}
	data, err := atomicfile.ReadRegular(path, config.MaxFileBytes)
	if err != nil {
		fmt.Fprintf(stderr, "lantern config edit: %v\n", err)
		return exitError
	}
	cfg, err := config.ParseChecked(path, data, checkTheme)
	return reportCheck(stdout, cfg, err)
}
