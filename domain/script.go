package domain

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// ReadScript reads a walkthrough script: one command per line, blank lines
// and lines starting with # skipped. The script agent, the oracle and the
// benchmark's walkthrough agent read it by these rules.
func ReadScript(r io.Reader) ([]string, error) {
	var cmds []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cmds = append(cmds, line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read script: %w", err)
	}
	return cmds, nil
}
