package config

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/kimi-run/kimi-run/model"
)

// Fallback is one model of the --fallback-model chain (issue 32 #6), resolved the way the
// run's own model is: a name of the config's [models] brings that entry's provider (its
// protocol, endpoint, key, headers, window and prices); any other name is a model id on the
// run's own endpoint.
type Fallback struct {
	// Name is the name as given (a [models] key or a model id).
	Name string
	// Endpoint is where its calls go. With SameProvider its key is the run's (a stored
	// login's token included), set when the run starts.
	Endpoint Endpoint
	// SameProvider says it is reached through the run's own provider: a model id on the
	// run's endpoint, or a [models] entry of the same provider.
	SameProvider bool
	// Prices are its [models] entry's; nil when unknown (a model id, an entry without them).
	Prices *model.Prices
}

// resolveFallbacks resolves the chain of --fallback-model (or fallback_models in the
// config file), in order, after the run's own model (main is its entry, found says it
// has one). A fallback the run could not use is a usage error now, not a surprise at
// the moment the run needs it: a provider type kimi-run does not speak, a stored login of
// another provider, a cost cap with no prices for it.
func (s *Settings) resolveFallbacks(fc *fileConfig, main modelConfig, found bool) error {
	f := &s.Flags
	if f.Given("fallback-model") && len(f.FallbackModel) == 0 {
		return Usagef("--fallback-model names an empty model (an unset shell variable?); leave the flag out for none")
	}
	for _, name := range f.FallbackModel {
		name = strings.TrimSpace(name)
		if name == "" {
			return Usagef("%s names an empty model", f.From("fallback-model"))
		}
		fb, err := s.fallback(fc, name, main, found)
		if err != nil {
			return err
		}
		if s.Budget.MaxCost > 0 && fb.Prices == nil {
			how := fmt.Sprintf("give it price_input and price_output in its [models.%s] entry", name)
			if _, ok := fc.Models[name]; !ok {
				how = "make it a [models] entry with price_input and price_output and name that entry (a bare model id has no prices)"
			}
			return Usagef("--max-cost-usd needs the prices of every model the run may use, and fallback model %q has none: %s", name, how)
		}
		s.Fallbacks = append(s.Fallbacks, fb)
	}
	return nil
}

// fallback resolves one fallback model.
func (s *Settings) fallback(fc *fileConfig, name string, main modelConfig, mainFound bool) (Fallback, error) {
	entry, prov, found, err := fc.model(name)
	if err != nil {
		return Fallback{}, err
	}
	if !found {
		// A model id on the run's own endpoint, as the single --fallback-model always was.
		e := s.Endpoint
		e.Model = name
		e.MaxContext, e.ContextKnown = DefaultMaxContext, false
		if s.Flags.MaxContextSize > 0 {
			e.MaxContext, e.ContextKnown = s.Flags.MaxContextSize, true
		}
		return Fallback{Name: name, Endpoint: e, SameProvider: true}, nil
	}
	same := mainFound && entry.Provider == main.Provider
	baseURL := ""
	if same {
		baseURL = s.Flags.BaseURL // --base-url moves the run's provider, whichever model
	}
	menv, err := readModelEnv(s.Env)
	if err != nil {
		return Fallback{}, err
	}
	// A scratch Settings: fromEntry fills its Endpoint as it fills the run's.
	scratch := &Settings{Flags: s.Flags, Env: s.Env}
	kimi, err := scratch.fromEntry(fc, name, &entry, prov, baseURL, name, menv)
	if err != nil {
		return Fallback{}, err
	}
	e := scratch.Endpoint
	e.KimiProvider = kimi
	if kimi {
		e.Generation = menv.Generation
	}
	if s.Flags.Thinking != nil {
		e.Thinking = s.Flags.Thinking
	}
	if !e.ContextKnown {
		e.MaxContext = DefaultMaxContext
	}
	if e.Login != nil && !same {
		return Fallback{}, Usagef("fallback model %q: its provider %q signs in with a stored kimi login, which only the run's own provider may use; give that provider an api_key, or make the fallback a model of the run's provider", name, entry.Provider)
	}
	u, err := url.Parse(e.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Fallback{}, Usagef("fallback model %q: invalid base URL %q of provider %q: want http(s)://host[:port]/path", name, RedactURL(e.BaseURL), entry.Provider)
	}
	if e.APIKey == "" && e.Login == nil && !isLoopback(u.Hostname()) && s.Flags.Replay == "" {
		return Fallback{}, Usagef("fallback model %q: its provider %q has no api_key", name, entry.Provider)
	}
	fb := Fallback{Name: name, Endpoint: e, SameProvider: same}
	if entry.PriceInput != nil && entry.PriceOutput != nil {
		cached := entry.PriceCachedInput
		if cached == nil {
			cached = entry.PriceInput
		}
		fb.Prices = &model.Prices{Input: *entry.PriceInput, CachedInput: *cached, Output: *entry.PriceOutput,
			CacheWrite: *entry.PriceInput * model.CacheWriteFactor}
		if entry.PriceCacheWrite != nil {
			fb.Prices.CacheWrite = *entry.PriceCacheWrite
		}
	}
	return fb, nil
}
