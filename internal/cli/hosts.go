package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/sanitize"
)

// Several servers ([server] hosts, LANTERN_SERVER_HOSTS) spread games, not
// requests: a game keeps its prompt prefix in one server's cache only if
// every request of it goes there. So a session plays on one host for its
// whole life, bench plays several episodes at once, one part of them a
// host, and a host that does not answer is skipped with a warning,
// wherever it stands in the list.

// hostTimeout bounds the question whether a host answers.
const hostTimeout = 3 * time.Second

// hostProbe is one host of the list and whether it answered.
type hostProbe struct {
	Host    string
	Version string
	Err     error
}

// ErrNoHost: no host of the list answers.
var ErrNoHost = errors.New("no model server of the list answers")

// serverHosts is the global server list ([server] hosts) and where it came
// from; nil when it names fewer than two.
func serverHosts(cfg *config.Config) ([]string, string) {
	hosts := config.HostList(cfg.Server.Hosts)
	if len(hosts) < 2 {
		return nil, ""
	}
	return hosts, cfg.Sources["server.hosts"].String()
}

// probeHosts asks every host at once whether it answers (its version, or
// its model list for an OpenAI-compatible one).
func probeHosts(ctx context.Context, cfg *config.Config, hosts []string) []hostProbe {
	out := make([]hostProbe, len(hosts))
	var wg sync.WaitGroup
	for i, h := range hosts {
		out[i].Host = h
		wg.Go(func() {
			client, err := newClient(pinHost(cfg, h), nil)
			if err != nil {
				out[i].Err = err
				return
			}
			tctx, cancel := context.WithTimeout(ctx, hostTimeout)
			defer cancel()
			out[i].Version, out[i].Err = client.Version(tctx)
		})
	}
	wg.Wait()
	return out
}

// liveHosts is the global server list's hosts that answer, each one that
// does not named on stderr (who: the command); with fewer than two hosts
// in the list it is nil and nothing is asked (the first call says whether
// the one server answers). ErrNoHost when none answers.
func liveHosts(ctx context.Context, cfg *config.Config, who string, stderr io.Writer) ([]string, error) {
	hosts, src := serverHosts(cfg)
	if hosts == nil {
		return nil, nil
	}
	var live []string
	var dead []string
	for _, p := range probeHosts(ctx, cfg, hosts) {
		if p.Err != nil {
			fmt.Fprintf(stderr, "%s: warning: host %s does not answer, skipped: %s\n", who, sanitize.Line(p.Host), sanitize.Line(sanitize.Clip(p.Err.Error(), 300)))
			dead = append(dead, p.Host)
			continue
		}
		live = append(live, p.Host)
	}
	if len(live) == 0 {
		return nil, fmt.Errorf("%w: %s (hosts from %s)", ErrNoHost, strings.Join(dead, ", "), src)
	}
	return live, nil
}

// pinHost is cfg with the global server list narrowed to one host: every
// request of a session goes there.
func pinHost(cfg *config.Config, host string) *config.Config {
	c := *cfg
	c.Server.Hosts = host
	return &c
}

// oneHost narrows cfg to the first host of the list that answers, saying
// so on stderr (a game stays on one host); cfg as it is with fewer than
// two hosts.
func oneHost(ctx context.Context, cfg *config.Config, who string, stderr io.Writer) (*config.Config, error) {
	live, err := liveHosts(ctx, cfg, who, stderr)
	if err != nil || live == nil {
		return cfg, err
	}
	fmt.Fprintf(stderr, "%s: playing on host %s (a game stays on one host; bench spreads its episodes over all)\n", who, sanitize.Line(live[0]))
	return pinHost(cfg, live[0]), nil
}
