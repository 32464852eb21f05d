package llm

import (
	"context"
	"fmt"
	"sort"

	"github.com/ollama/ollama/api"

	"github.com/lantern-if/lantern/config"
)

// A model's identity, for the record a benchmark keeps: what the server
// says the weights behind a name are. Ollama's /api/tags gives each model's
// digest (the hash of its manifest: the same name may later point at other
// weights), its parameter count and quantisation; an OpenAI-compatible
// server's /models gives the id it serves the model under (and, when
// Ollama serves that base, its /api/tags the rest).

// ModelIdentity is one model as one server knows it.
type ModelIdentity struct {
	Model  string // as the roles name it
	API    string // config.APIOllama or config.APIOpenAI
	Server string // the server's URL (an OpenAI base's, with its path), its password hidden
	// ID is the name the server lists the model under (/models' id, or
	// /api/tags' name).
	ID      string
	OwnedBy string // /models' owned_by
	// Digest, Family, Parameters, Quantization and Format are /api/tags'
	// (Ollama, or an OpenAI base Ollama serves); empty when the server
	// does not say.
	Digest       string
	Family       string
	Parameters   string
	Quantization string
	Format       string
	// Err says why the server could not be asked, or did not list the
	// model; the fields above are then what is known.
	Err string
}

// ModelIdentities asks every server a role uses what each of the roles'
// models is: one identity per model and server, in the order of the
// roles' names (config.RoleNames, then any other), each server asked once.
// A server that cannot be asked gives identities with Err set; it is no
// error of the call.
func (c *Client) ModelIdentities(ctx context.Context) []ModelIdentity {
	type pair struct {
		e     *endpoint
		model string
	}
	c.mu.Lock()
	order := roleOrder(c.roles)
	var pairs []pair
	seen := map[pair]bool{}
	for _, name := range order {
		model := c.roles[name].Model
		if model == "" {
			continue
		}
		eps := c.byRole[name]
		if len(eps) == 0 {
			eps = c.def
		}
		for _, e := range eps {
			p := pair{e, model}
			if !seen[p] {
				seen[p] = true
				pairs = append(pairs, p)
			}
		}
	}
	c.mu.Unlock()
	tags := map[*endpoint]listing[api.ListModelResponse]{}
	models := map[*endpoint]listing[oaModel]{}
	out := make([]ModelIdentity, 0, len(pairs))
	for _, p := range pairs {
		id := ModelIdentity{Model: p.model, API: p.e.api, Server: p.e.base.Redacted()}
		if p.e.api == config.APIOpenAI {
			l, ok := models[p.e]
			if !ok {
				l.items, l.err = c.openaiModels(ctx, p.e)
				models[p.e] = l
			}
			if l.err != nil {
				id.Err = "/models: " + clipText(c.classify(ctx, l.err).Error(), 300)
				out = append(out, id)
				continue
			}
			found := false
			for _, m := range l.items {
				if sameModel(m.ID, p.model) {
					id.ID, id.OwnedBy, found = clipText(m.ID, 200), clipText(m.OwnedBy, 80), true
					break
				}
			}
			if !found {
				id.Err = fmt.Sprintf("/models lists no %s", clipText(p.model, 200))
			}
			if !p.e.isOllama.Load() {
				// Not Ollama's /v1: no /api/tags to ask.
				out = append(out, id)
				continue
			}
		}
		l, ok := tags[p.e]
		if !ok {
			var r *api.ListResponse
			r, l.err = p.e.ol.List(ctx)
			if r != nil {
				l.items = r.Models
			}
			tags[p.e] = l
		}
		switch {
		case l.err != nil && id.API == config.APIOllama:
			id.Err = "/api/tags: " + clipText(c.classify(ctx, l.err).Error(), 300)
		case l.err == nil:
			if !fillTags(&id, l.items) && id.API == config.APIOllama {
				id.Err = fmt.Sprintf("/api/tags lists no %s", clipText(p.model, 200))
			}
		}
		out = append(out, id)
	}
	return out
}

// ServerURL is the global server's URL (the first, when there are
// several; an OpenAI base with its path), its password hidden.
func (c *Client) ServerURL() string { return c.def[0].base.Redacted() }

// listing is a server's list, asked once.
type listing[T any] struct {
	items []T
	err   error
}

// fillTags adds /api/tags' entry for the identity's model; false when the
// list has none.
func fillTags(id *ModelIdentity, list []api.ListModelResponse) bool {
	for _, m := range list {
		if !sameModel(m.Name, id.Model) && !sameModel(m.Model, id.Model) {
			continue
		}
		if id.ID == "" {
			id.ID = clipText(m.Name, 200)
		}
		id.Digest = clipText(m.Digest, 100)
		id.Family = clipText(m.Details.Family, 40)
		id.Parameters = clipText(m.Details.ParameterSize, 40)
		id.Quantization = clipText(m.Details.QuantizationLevel, 40)
		id.Format = clipText(m.Details.Format, 40)
		return true
	}
	return false
}

// roleOrder is the roles' names: config.RoleNames' order, then any other,
// sorted.
func roleOrder(roles map[string]config.Role) []string {
	var out []string
	known := map[string]bool{}
	for _, n := range config.RoleNames() {
		known[n] = true
		if _, ok := roles[n]; ok {
			out = append(out, n)
		}
	}
	var rest []string
	for n := range roles {
		if !known[n] {
			rest = append(rest, n)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}
