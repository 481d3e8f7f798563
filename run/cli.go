package run

import "github.com/kimi-run/kimi-run/config"

// CLI is the parsed command line (config.Flags); the name stays for the tests that build
// the flag parser from it.
type CLI = config.Flags

const description = `Run a coding agent once, without a person present: every tool is approved automatically.

Environment (flags win over it, and it over the config file):
  KIMI_API_KEY, KIMI_BASE_URL       key and endpoint (default https://api.moonshot.ai/v1)
  OPENAI_API_KEY, OPENAI_BASE_URL   used when KIMI_API_KEY is unset (default https://api.openai.com/v1)
  ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, ANTHROPIC_BASE_URL
                                    for a config provider of type anthropic without api_key
  GOOGLE_API_KEY, GEMINI_API_KEY    key of a gemini/vertexai provider of the config file without api_key
  KIMI_MODEL_NAME, OPENAI_MODEL     model name, as --model
  KIMI_MODEL_MAX_CONTEXT_SIZE       context window in tokens, as --max-context-size
  KIMI_SHARE_DIR                    folder of Kimi CLI's config.toml (default ~/.kimi)
  XDG_STATE_HOME                    sessions go under $XDG_STATE_HOME/kimi-run (default ~/.local/state)
  NO_COLOR                          no colour on stderr
A server on localhost needs no key.

Exit codes: 0 done, 1 runtime error, 2 usage error, 3 step limit, loop guard or answer
cut at the token limit, 4 Ralph/flow budget used up, 5 authentication refused, 6 token,
cost or tool-call budget used up (--max-tokens-total, --max-cost-usd, --max-tool-calls),
7 final answer never matched --json-schema, 8 the provider stopped the answer or refused
the prompt (content_filter, Anthropic's refusal, Gemini's SAFETY, ...), 9 a tool call was
refused under --fail-on-denial, 75 transient provider failure after retries or session in
use (worth retrying later), 124 --timeout, 130/143 SIGINT/SIGTERM, 129/131 SIGHUP/SIGQUIT.`
