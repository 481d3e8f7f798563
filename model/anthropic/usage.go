package anthropic

import "github.com/kimi-run/kimi-run/model"

// anthropicUsage is a usage object: in message_start the whole prompt's counts, in
// message_delta the cumulative counts so far (output_tokens always; the others when the
// server sends them again). A field that is absent or null leaves the count as it was.
type anthropicUsage struct {
	InputTokens         *model.LenientInt `json:"input_tokens"`
	OutputTokens        *model.LenientInt `json:"output_tokens"`
	CacheCreationTokens *model.LenientInt `json:"cache_creation_input_tokens"`
	CacheReadTokens     *model.LenientInt `json:"cache_read_input_tokens"`
	// Iterations are the model calls the API made for one request when it compacted
	// the context itself: the counts above are then the last one's, and the request
	// costs them all.
	Iterations []anthropicUsage `json:"iterations"`
}

// merge takes the counts o carries; those it lacks keep their value.
func (u *anthropicUsage) merge(o *anthropicUsage) {
	if o == nil {
		return
	}
	for _, f := range []struct{ dst, src **model.LenientInt }{
		{&u.InputTokens, &o.InputTokens}, {&u.OutputTokens, &o.OutputTokens},
		{&u.CacheCreationTokens, &o.CacheCreationTokens}, {&u.CacheReadTokens, &o.CacheReadTokens},
	} {
		if *f.src != nil {
			*f.dst = *f.src
		}
	}
	if len(o.Iterations) > 0 {
		u.Iterations = o.Iterations
	}
}

// tokens maps the API's counts onto kimi-run's: the API counts the prompt's cached and
// cache-written tokens apart from input_tokens; kimi-run's input tokens are the whole
// prompt, with the cached ones part of it, as OpenAI-compatible providers count them.
func (u anthropicUsage) tokens() model.TokenUsage {
	if len(u.Iterations) > 0 {
		var t model.TokenUsage
		for _, it := range u.Iterations {
			it.Iterations = nil
			t.Add(it.tokens())
		}
		return t
	}
	n := func(p *model.LenientInt) int {
		if p == nil {
			return 0
		}
		return int(*p)
	}
	read, written := n(u.CacheReadTokens), n(u.CacheCreationTokens)
	return model.TokenUsage{InputTokens: n(u.InputTokens) + read + written, OutputTokens: n(u.OutputTokens),
		CachedTokens: read, CacheWriteTokens: written}
}

func (r *anthropicReader) totalUsage() model.TokenUsage {
	t := r.usage
	t.Add(r.now.tokens())
	return t
}
