package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm"
)

// Provenance is what a paper must say of how a run was made: the protocol
// and server, the profile, each role's model and sampling as configured,
// what the server says each model is (its digest, size and quantisation,
// or the id it serves the model under), and the harness's settings.

// FormatVersion is the version of the bench's JSON (a Report's and a
// Suite's) and of its CSV and JSON Lines exports; it changes when a field
// changes meaning or goes away. Readers take every version up to it.
//
// 2: provenance (protocol, server, profile, sampling, model identities,
// settings); "ollama_host" became "server"; the means leave stopped
// episodes out (counted beside them); prompt tokens count every call of
// the run (episode ends and calls of no turn too), the same figure in
// every table; exports carry the format version.
const FormatVersion = 2

// ErrNewerFormat: a report, suite or export was written by a newer
// Lantern, in a format this one cannot read.
var ErrNewerFormat = errors.New("bench report format newer than this Lantern's")

// ErrNotReport: the data is no bench report or suite.
var ErrNotReport = errors.New("not a bench report")

// Provenance is how a run was made.
type Provenance struct {
	// API is the global server's protocol: config.APIOllama or APIOpenAI
	// ("" when no model played).
	API string `json:"api,omitempty"`
	// BaseURL is the global server's URL (the first, when there are
	// several), its password hidden.
	BaseURL string `json:"base_url,omitempty"`
	// Hosts are every server a role used.
	Hosts []string `json:"hosts,omitempty"`
	// Profile is the managers' cadence (config.ProfileLean, ProfileZorkGPT).
	Profile string `json:"profile"`
	// Roles are each role's model, server and sampling as configured.
	Roles []RoleSetup `json:"roles,omitempty"`
	// Models are what each server said each model is.
	Models []ModelIdentity `json:"model_identities,omitempty"`
	// Settings are the loop's, managers' and budgets' keys as the run had
	// them (loop.seed aside: the run's seeds say it), by lantern.toml's
	// name, in TOML.
	Settings map[string]string `json:"settings,omitempty"`
}

// RoleSetup is one role's model, server and sampling as configured.
type RoleSetup struct {
	Role  string `json:"role"`
	Model string `json:"model"`
	API   string `json:"api"`
	// Server is the role's own server (base URL or hosts) when it has
	// one; "" for the global server.
	Server        string  `json:"server,omitempty"`
	Temperature   float64 `json:"temperature"`
	TopP          float64 `json:"top_p"`
	TopK          int     `json:"top_k"`
	MinP          float64 `json:"min_p"`
	RepeatPenalty float64 `json:"repeat_penalty"`
	Seed          int     `json:"seed"`        // 0: the server's choice
	NumPredict    int     `json:"num_predict"` // the most tokens a reply may have; 0: unbounded
	NumCtx        int     `json:"num_ctx"`     // 0: the server's context size
	// KeepAlive is as configured ("": the server's default).
	KeepAlive string `json:"keep_alive,omitempty"`
	Think     string `json:"think"`
	Timeout   string `json:"timeout"`
	// NotSent names the settings configured but not sent on the role's
	// protocol (num_ctx and keep_alive on the OpenAI protocol).
	NotSent []string `json:"not_sent,omitempty"`
}

// ModelIdentity is what one server said one model is (llm.ModelIdentity).
type ModelIdentity struct {
	Model        string `json:"model"`
	API          string `json:"api"`
	Server       string `json:"server"`
	ID           string `json:"id,omitempty"` // the name the server lists it under
	OwnedBy      string `json:"owned_by,omitempty"`
	Digest       string `json:"digest,omitempty"`
	Family       string `json:"family,omitempty"`
	Parameters   string `json:"parameter_size,omitempty"`
	Quantization string `json:"quantization,omitempty"`
	Format       string `json:"file_format,omitempty"`
	Error        string `json:"error,omitempty"` // why the server said nothing
}

// NewProvenance records a configuration: the profile and settings always,
// the roles' setup when a model plays (withModels).
func NewProvenance(cfg *config.Config, withModels bool) *Provenance {
	p := &Provenance{Profile: cfg.Profile, Settings: map[string]string{}}
	if p.Profile == "" {
		p.Profile = config.ProfileLean
	}
	for _, k := range config.KeyNames() {
		// The configuration's tables that shape play; the seed is the
		// run's own (Report.Seed, Seeds: each story's in a suite).
		for _, prefix := range []string{"loop.", "managers.", "budgets."} {
			if strings.HasPrefix(k, prefix) && k != "loop.seed" {
				p.Settings[k] = cfg.Get(k)
			}
		}
	}
	if !withModels {
		return p
	}
	for _, name := range config.RoleNames() {
		r, ok := cfg.Roles[name]
		if !ok {
			continue
		}
		p.Roles = append(p.Roles, roleSetup(name, r, config.ServerFor(cfg.Server, r)))
	}
	return p
}

func roleSetup(name string, r config.Role, s config.Server) RoleSetup {
	rs := RoleSetup{Role: name, Model: r.Model, API: s.API, Temperature: r.Temperature, TopP: r.TopP, TopK: r.TopK, MinP: r.MinP,
		RepeatPenalty: r.RepeatPenalty, Seed: r.Seed, NumPredict: r.NumPredict, NumCtx: r.NumCtx, Think: string(r.Think), Timeout: r.Timeout.String()}
	if r.KeepAlive != 0 {
		rs.KeepAlive = r.KeepAlive.String()
	}
	switch {
	case r.Hosts != "":
		rs.Server = r.Hosts
	case r.BaseURL != "":
		rs.Server = r.BaseURL
	}
	if s.API == config.APIOpenAI {
		if r.NumCtx != 0 {
			rs.NotSent = append(rs.NotSent, "num_ctx")
		}
		if r.KeepAlive != 0 {
			rs.NotSent = append(rs.NotSent, "keep_alive")
		}
	}
	return rs
}

// SetServer records the client's server and what it says of each model.
func (p *Provenance) SetServer(api, baseURL string, hosts []string, ids []llm.ModelIdentity) {
	p.API, p.BaseURL, p.Hosts = api, baseURL, hosts
	p.Models = nil
	for _, id := range ids {
		p.Models = append(p.Models, ModelIdentity{Model: id.Model, API: id.API, Server: id.Server, ID: id.ID, OwnedBy: id.OwnedBy,
			Digest: id.Digest, Family: id.Family, Parameters: id.Parameters, Quantization: id.Quantization, Format: id.Format, Error: id.Err})
	}
}

// Role is a role's setup (ok false: not recorded).
func (p *Provenance) Role(name string) (RoleSetup, bool) {
	if p == nil {
		return RoleSetup{}, false
	}
	return first(p.Roles, func(r RoleSetup) bool { return r.Role == name })
}

// Identity is the first identity recorded for a model: the one its first
// server gave.
func (p *Provenance) Identity(model string) (ModelIdentity, bool) {
	if p == nil {
		return ModelIdentity{}, false
	}
	return first(p.Models, func(m ModelIdentity) bool { return m.Model == model })
}

// first is the first element of xs that is, if any.
func first[T any](xs []T, is func(T) bool) (T, bool) {
	if i := slices.IndexFunc(xs, is); i >= 0 {
		return xs[i], true
	}
	var zero T
	return zero, false
}

// SetupDiffers says how two runs' setups differ (the protocol, profile,
// roles' models and sampling, settings, and a model's digest where both
// have one): "" when they do not. The servers may differ (each shard of a
// benchmark may have its own).
func SetupDiffers(a, b *Provenance) string {
	if a == nil || b == nil {
		return ""
	}
	switch {
	case a.API != b.API:
		return fmt.Sprintf("protocol %q, not %q", b.API, a.API)
	case a.Profile != b.Profile:
		return fmt.Sprintf("profile %q, not %q", b.Profile, a.Profile)
	}
	strip := func(rs []RoleSetup) []RoleSetup {
		out := slices.Clone(rs)
		for i := range out {
			out[i].Server = ""
		}
		return out
	}
	if ra, rb := jsonText(strip(a.Roles)), jsonText(strip(b.Roles)); ra != rb {
		return "other roles' models or sampling: " + rb + ", not " + ra
	}
	for k, v := range a.Settings {
		if w, ok := b.Settings[k]; ok && w != v {
			return fmt.Sprintf("%s = %s, not %s", k, w, v)
		}
	}
	for _, ma := range a.Models {
		for _, mb := range b.Models {
			if ma.Model == mb.Model && ma.Digest != "" && mb.Digest != "" && ma.Digest != mb.Digest {
				return fmt.Sprintf("model %s with digest %s, not %s", ma.Model, mb.Digest, ma.Digest)
			}
		}
	}
	return ""
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// MergeProvenance joins the provenance of the parts of one benchmark:
// the first part's setup, with every part's servers and model identities.
func MergeProvenance(ps []*Provenance) *Provenance {
	var out *Provenance
	for _, p := range ps {
		if p == nil {
			continue
		}
		if out == nil {
			c := *p
			c.Hosts, c.Models = slices.Clone(p.Hosts), slices.Clone(p.Models)
			out = &c
			continue
		}
		if p.BaseURL != out.BaseURL {
			out.BaseURL = "" // the parts ran against different servers: Hosts lists them
		}
		for _, h := range p.Hosts {
			if !slices.Contains(out.Hosts, h) {
				out.Hosts = append(out.Hosts, h)
			}
		}
		for _, m := range p.Models {
			if !slices.Contains(out.Models, m) {
				out.Models = append(out.Models, m)
			}
		}
	}
	return out
}

// APIName is a protocol as a person reads it.
func APIName(api string) string {
	switch api {
	case config.APIOpenAI:
		return "OpenAI-compatible API"
	case config.APIOllama:
		return "Ollama API"
	}
	return "model server"
}

// identityText is a model's identity in a line: its digest (the first 12
// hex digits, as ollama list shows them) or id, size and quantisation.
func identityText(m ModelIdentity) string {
	var parts []string
	switch {
	case m.Digest != "":
		d := strings.TrimPrefix(m.Digest, "sha256:")
		parts = append(parts, "digest "+d[:min(len(d), 12)])
	case m.ID != "":
		parts = append(parts, "served as "+m.ID)
	}
	if m.Parameters != "" {
		parts = append(parts, m.Parameters)
	}
	if m.Quantization != "" {
		parts = append(parts, m.Quantization)
	}
	if len(parts) == 0 {
		if m.Error != "" {
			return "unknown (" + m.Error + ")"
		}
		return "unknown"
	}
	return strings.Join(parts, ", ")
}
