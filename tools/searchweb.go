package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

const (
	// webSearchTimeout bounds one search: the service gives itself 30 s (timeout_seconds) and
	// reading the pages (include_content) takes longer, as Kimi CLI allows 180 s.
	webSearchTimeout = 180 * time.Second
	// searchServerTimeout is the time the service is asked to keep to, in seconds.
	searchServerTimeout = 30
	// searchMaxBytes bounds the service's answer; what the model reads is capped further.
	searchMaxBytes = 8 << 20
	// searchDefaultLimit and searchMaxLimit are the results asked for by default and at most.
	searchDefaultLimit = 5
	searchMaxLimit     = 20
)

const searchDescription = `Search the web and get the results: title, address, date and a summary of each page, and with include_content the pages' text too.

Use it for what is newer than your knowledge or specific to a product: release notes, changelogs, error messages, documentation of a library version, news.
Then read a result in full with FetchURL when its summary is not enough.
limit is the number of results (default {search_default_limit}, at most {search_max_limit}); a more precise query helps more than a larger limit. include_content costs many tokens: keep limit small with it.`

// searchArgs are the arguments of a SearchWeb call, Kimi CLI's.
type searchArgs struct {
	Query          string `json:"query" description:"what to search for"`
	Limit          int    `json:"limit,omitempty" default:"5" minimum:"1" maximum:"20" description:"number of results, 1 to {search_max_limit} (default {search_default_limit})"`
	IncludeContent bool   `json:"include_content,omitempty" default:"false" description:"also return the text of each page (many tokens; default false)"`
}

// searchRequest is the body the search service takes (Kimi CLI's tools/web/search.py).
type searchRequest struct {
	TextQuery          string `json:"text_query"`
	Limit              int    `json:"limit"`
	EnablePageCrawling bool   `json:"enable_page_crawling"`
	TimeoutSeconds     int    `json:"timeout_seconds"`
}

// searchAnswer is what it answers.
type searchAnswer struct {
	SearchResults []searchHit `json:"search_results"`
}

type searchHit struct {
	SiteName string `json:"site_name"`
	Title    string `json:"title"`
	URL      string `json:"url"`
	Snippet  string `json:"snippet"`
	Content  string `json:"content"`
	Date     string `json:"date"`
}

// NewSearchWeb returns the SearchWeb tool, which asks env.Search; it is offered only when
// that service is configured, as in Kimi CLI.
func NewSearchWeb(env Env) Tool {
	svc := env.Search
	return New("SearchWeb", searchDescription, Facts{Network: true, ReadOnly: true}, func(ctx context.Context, in searchArgs) (Result, error) {
		return searchWeb(ctx, svc, in)
	})
}

func searchWeb(ctx context.Context, svc *Service, in searchArgs) (Result, error) {
	q := strings.TrimSpace(in.Query)
	switch {
	case svc == nil:
		return Errorf("no search service is configured ([services.moonshot_search])").
			WithKimi("Search service is not configured. You may want to try other methods to search.", ""), nil
	case q == "":
		return Errorf("query is empty: say what to search for"), nil
	case in.Limit < 0 || in.Limit > searchMaxLimit:
		return Errorf("limit must be 1 to %d, got %d", searchMaxLimit, in.Limit), nil
	}
	limit := in.Limit
	if limit == 0 {
		limit = searchDefaultLimit
	}
	body := searchRequest{TextQuery: q, Limit: limit, EnablePageCrawling: in.IncludeContent, TimeoutSeconds: searchServerTimeout}
	data, _, err := svc.post(ctx, body, "", webSearchTimeout, searchMaxBytes)
	if err != nil {
		return searchFailed(err), nil
	}
	var ans searchAnswer
	if err := json.Unmarshal(data, &ans); err != nil || ans.SearchResults == nil {
		why := "no search_results"
		if err != nil {
			why = errLine(err)
		}
		return Errorf("the search service answered something that is not a list of results (%s); it may be down, try again later or use FetchURL", why).
			WithKimi(fmt.Sprintf("Failed to parse search results. Error: %s. This may indicate that the search service is currently unavailable.", why), ""), nil
	}
	if len(ans.SearchResults) == 0 {
		return Text(fmt.Sprintf("No results for %q.", q)).WithKimi("", ""), nil
	}
	var b strings.Builder
	for i, h := range ans.SearchResults {
		if i > 0 {
			b.WriteString("\n---\n\n")
		}
		fmt.Fprintf(&b, "%d. %s\n", i+1, oneLineText(h.Title))
		fmt.Fprintf(&b, "URL: %s\n", h.URL)
		if h.SiteName != "" {
			fmt.Fprintf(&b, "Site: %s\n", oneLineText(h.SiteName))
		}
		if h.Date != "" {
			fmt.Fprintf(&b, "Date: %s\n", h.Date)
		}
		if s := strings.TrimSpace(h.Snippet); s != "" {
			fmt.Fprintf(&b, "Summary: %s\n", s)
		}
		if c := strings.TrimSpace(h.Content); c != "" {
			fmt.Fprintf(&b, "\n%s\n", c)
		}
	}
	out := b.String()
	return Text(out).WithKimi("", out), nil
}

// searchFailed words a search that got no answer, for the model and in Kimi's words.
func searchFailed(err error) Result {
	se, _ := err.(*serviceError)
	switch {
	case se != nil && se.timeout:
		return Errorf("the search timed out (%s); the service may be slow: try again, or a narrower query without include_content", se.detail).
			WithKimi("Search request timed out. The search service may be slow or unavailable.", "")
	case se != nil && se.status != 0:
		return Errorf("the search service failed: %s; it may be down: try again later, or use FetchURL on a page you know", se.detail).
			WithKimi(fmt.Sprintf("Failed to search. Status: %d. This may indicate that the search service is currently unavailable.", se.status), "")
	}
	return Errorf("the search service cannot be reached: %v", err).
		WithKimi(fmt.Sprintf("Search request failed: %v. The search service may be unavailable.", err), "")
}

// oneLineText is s with its runs of white space, line breaks included, made one space.
func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }

// errLine is an error's message on one line, cut at 300 bytes.
func errLine(err error) string {
	s := oneLineText(err.Error())
	if len(s) > 300 {
		s = strings.ToValidUTF8(s[:300], "") + "…"
	}
	return s
}
