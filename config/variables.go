package config

import (
	"reflect"
	"regexp"
	"strings"
	"sync"
)

// Variable is an environment variable kimi-run reads, declared once for --help-all and
// docs/reference.md. A flag's variables are declared by its envvar tag (FlagVariables);
// the others by the table of the package that reads them (Variables here, run's own).
type Variable struct {
	// Names are the variable and those read in its place or beside it.
	Names []string
	// Meaning is one line of Markdown: `code` and [links](page.md) as docs/ writes them.
	Meaning string
}

// Variables are the variables package config reads besides the flags' envvar tags.
var Variables = []Variable{
	{[]string{"KIMI_API_KEY"}, "API key; sent only to `KIMI_BASE_URL` (default Moonshot) or `--base-url`"},
	{[]string{"KIMI_BASE_URL"}, "endpoint paired with `KIMI_API_KEY` (default `" + DefaultKimiBaseURL + "`)"},
	{[]string{"OPENAI_API_KEY"}, "used when `KIMI_API_KEY` is unset; sent only to `OPENAI_BASE_URL` or `--base-url`"},
	{[]string{"OPENAI_BASE_URL"}, "endpoint paired with `OPENAI_API_KEY` (default `" + DefaultOpenAIBaseURL + "`)"},
	{[]string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"}, "for an `anthropic` provider without `api_key`: the key (sent as `x-api-key`), else a bearer token; never used in place of a configured key ([Provider types](providers.md#provider-types))"},
	{[]string{"ANTHROPIC_BASE_URL"}, "the endpoint of an `anthropic` provider without `base_url`"},
	{[]string{"GOOGLE_API_KEY", "GEMINI_API_KEY"}, "key of a `gemini`, `google_genai` or `vertexai` provider without `api_key` (`GOOGLE_API_KEY` first, as Google's SDK reads them)"},
	{[]string{"GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION"}, "a `vertexai` provider's project and location when its `env` table does not set them"},
	{[]string{"KIMI_MODEL_NAME", "OPENAI_MODEL"}, "model name; with a config file, the model id of its default model ([precedence](#where-settings-come-from))"},
	{[]string{"KIMI_MODEL_TEMPERATURE", "KIMI_MODEL_TOP_P"}, "`temperature` and `top_p` sent with every request"},
	{[]string{"KIMI_MODEL_MAX_COMPLETION_TOKENS", "KIMI_MODEL_MAX_TOKENS"}, "hard cap on `max_completion_tokens` of every request (the second is the older name); `0` or less sends no cap"},
	{[]string{"KIMI_MODEL_CAPABILITIES"}, "comma-separated, replaces the model's `capabilities` (`thinking`, `always_thinking`, `image_in`, `video_in`)"},
	{[]string{"KIMI_MODEL_THINKING_KEEP"}, "Moonshot's `thinking.keep`: not supported, a warning says it is ignored"},
	{[]string{"KIMI_SHARE_DIR"}, "folder of Kimi CLI's `config.toml`, `mcp.json` and login (default `~/.kimi`)"},
	{[]string{"KIMI_CODE_OAUTH_HOST", "KIMI_OAUTH_HOST"}, "the host a `kimi login` token is refreshed at (default Kimi's)"},
	{[]string{"CI"}, "`true` (or `1`): `--stdin-timeout` defaults to 10s and `[background] print_wait_ceiling_s` to at most 10 minutes"},
}

// FlagVariables are the variables the flags' envvar tags declare, each "as --flag".
func FlagVariables() []Variable {
	var out []Variable
	for _, f := range reflect.VisibleFields(reflect.TypeFor[Flags]()) {
		if env := f.Tag.Get("envvar"); env != "" {
			out = append(out, Variable{strings.Split(env, ","), "as `--" + flagName(f) + "`"})
		}
	}
	return out
}

// EnvironmentHelp is the environment part of --help-all: per variable its names, then
// its meaning in plain text from column helpColumn, wrapped to fit 78 columns (kong
// indents the description by two); names too long for their column get a line of their
// own. The man page reads the rows back (manpage.Page.Description).
func EnvironmentHelp(vars []Variable) string {
	const helpColumn, width = 32, 78
	var b strings.Builder
	for _, v := range vars {
		line := "  " + strings.Join(v.Names, ", ")
		if len(line) > helpColumn-2 {
			b.WriteString(line + "\n")
			line = ""
		}
		for _, word := range strings.Fields(PlainText(v.Meaning)) {
			if len(line) < helpColumn {
				line += strings.Repeat(" ", helpColumn-len(line)) + word
			} else if len(line)+1+len(word) > width {
				b.WriteString(line + "\n")
				line = strings.Repeat(" ", helpColumn) + word
			} else {
				line += " " + word
			}
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// markdownLink is a link as docs/reference.md writes it: [text](page.md#anchor), or
// [text](#anchor) on the page itself. Compiled when help is printed, not on every run.
var markdownLink = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[([^\]]+)\]\(([^)#]*)(#[^)]*)?\)`) })

// PlainText is a line of Markdown as a terminal shows it: no backticks, and a link as the
// path of the docs/ page it names.
func PlainText(md string) string {
	md = markdownLink().ReplaceAllStringFunc(md, func(link string) string {
		page := markdownLink().FindStringSubmatch(link)[2]
		if page == "" {
			page = "reference.md"
		}
		return "docs/" + page
	})
	return strings.ReplaceAll(md, "`", "")
}
