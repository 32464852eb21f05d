package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// ErrBadHost is an Ollama host that is not host[:port] or an http(s) URL.
var ErrBadHost = errors.New(`want host[:port] or a URL, such as "127.0.0.1:11434" or "http://gpu-box:11434"`)

// OllamaURL reads an Ollama host as Ollama's own OLLAMA_HOST rules read it:
//   - no scheme means http, on port 11434 unless one is given;
//   - http:// without a port means port 80, https:// port 443;
//   - a bare "ollama.com" means https://ollama.com:443;
//   - a missing host (":11434", or nothing at all) means 127.0.0.1;
//   - an IPv6 address may be bracketed ("[::1]" or "[::1]:11434");
//   - anything after the host and port is the URL's path prefix.
//
// Ollama falls back to the default port when the port is not a number in
// range; Lantern says so instead, and refuses schemes other than http and
// https, which no Ollama server speaks.
func OllamaURL(h string) (*url.URL, error) {
	s := strings.TrimSpace(h)
	defaultPort := "11434"
	scheme, hostport, hasScheme := strings.Cut(s, "://")
	switch {
	case !hasScheme:
		scheme, hostport = "http", s
		if s == "ollama.com" {
			scheme, hostport = "https", "ollama.com:443"
		}
	case scheme == "http":
		defaultPort = "80"
	case scheme == "https":
		defaultPort = "443"
	default:
		return nil, fmt.Errorf("scheme %q: %w", scheme, ErrBadHost)
	}
	hostport, path, _ := strings.Cut(hostport, "/")
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		// No port: the whole is the host.
		host, port = strings.Trim(hostport, "[]"), defaultPort
		if ip := net.ParseIP(host); ip != nil {
			host = ip.String()
		}
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if strings.ContainsAny(host, " \t[]/@?#") {
		return nil, fmt.Errorf("host %q: %w", host, ErrBadHost)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return nil, fmt.Errorf("port %q: the port must be between 1 and 65535", port)
	}
	return &url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port), Path: path}, nil
}
