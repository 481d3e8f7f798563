package config

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kimi-run/kimi-run/internal/infile"
	"github.com/kimi-run/kimi-run/tools/mcp"
)

// MCP is the MCP servers a run will start, decided before any model call so that a broken
// configuration is a usage error.
type MCP struct {
	// Servers are the enabled servers by name. A stdio server's Env holds only its own
	// "env" entries, expanded: the run sets them on top of the environment every child
	// gets (OverlayEnv), so a server sees kimi-run's key only when its entry puts it there.
	Servers []mcp.Server
	// Warnings are about the configuration (unknown keys, replaced servers, unset
	// variables); the run reports them after init.
	Warnings []string
	// Startup and Call are the timeouts of starting a server and of one tool call.
	Startup, Call time.Duration
	// Strict is --mcp-strict.
	Strict bool
	// Trusted names the servers the user's config file ([sandbox] trusted_mcp_servers)
	// lets run unconfined under the sandbox; TrustedIn is that file ("" for --config's
	// text). The run decides whether the file may be believed (sandbox/runplan).
	Trusted   []string
	TrustedIn string
	// In is the mcp.json file each server's entry comes from, by name ("" for
	// --mcp-config's text).
	In map[string]string
}

// mcpEntry is one server of an mcp.json file, in the common {"mcpServers": {NAME: …}} shape.
type mcpEntry struct {
	Command   string            `json:"command"`
	Args      []string          `json:"args"`
	Env       map[string]string `json:"env"`
	Cwd       string            `json:"cwd"`
	URL       string            `json:"url"`
	Headers   map[string]string `json:"headers"`
	Transport string            `json:"transport"`
	Type      string            `json:"type"` // Claude Code's name for transport
	Disabled  bool              `json:"disabled"`
	Enabled   *bool             `json:"enabled"`
}

// mcpKnownKeys are the entry keys kimi-run reads; others draw a warning.
var mcpKnownKeys = []string{"command", "args", "env", "cwd", "url", "headers", "transport", "type", "disabled", "enabled"}

// resolveMCP reads the MCP configuration (mcpSources). A later server of the same name
// replaces an earlier one. A source that does not parse is a usage error naming
// it. The call timeout is the flag's, else the config file's ([mcp.client]), else the
// default.
func (s *Settings) resolveMCP(ctx context.Context, fc *fileConfig) error {
	cli, workDir := &s.Flags, s.WorkDir
	p := &s.MCP
	p.Startup, p.Call, p.Strict = cli.MCPStartupTimeout, cli.MCPCallTimeout, cli.MCPStrict
	if p.Startup < 0 || p.Call < 0 {
		return Usagef("MCP timeouts must not be negative")
	}
	if p.Startup == 0 {
		p.Startup = mcp.DefaultStartupTimeout
	}
	if p.Call == 0 {
		p.Call = mcp.DefaultCallTimeout
	}
	if cli.NoMCP {
		return nil
	}
	p.Trusted, p.TrustedIn = trustedServers(fc, &p.Warnings), fc.path
	sources, err := mcpSources(ctx, cli, s.Env)
	if err != nil {
		return err
	}
	entries := map[string]mcpEntry{}
	p.In = map[string]string{}
	for _, src := range sources {
		got, warnings, err := parseMCPConfig([]byte(src.text))
		if err != nil {
			return Usagef("%s: %v", src.name, err)
		}
		for _, w := range warnings {
			p.Warnings = append(p.Warnings, src.name+": "+w)
		}
		for name, e := range got {
			if _, dup := entries[name]; dup {
				p.Warnings = append(p.Warnings, fmt.Sprintf("%s: MCP server %q replaces the one configured before", src.name, name))
			}
			entries[name], p.In[name] = e, src.file
		}
	}
	names := make([]string, 0, len(entries))
	for name := range entries {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		e := entries[name]
		if e.Disabled || (e.Enabled != nil && !*e.Enabled) {
			continue
		}
		srv, warnings := e.server(name, workDir, s.Env)
		p.Warnings = append(p.Warnings, warnings...)
		p.Servers = append(p.Servers, srv)
	}
	return nil
}

// mcpSource is one mcp.json text, how messages name it, and its file ("" for
// --mcp-config's text).
type mcpSource struct{ name, text, file string }

// mcpSources are the MCP configuration texts in the order they apply: the files of
// --mcp-config-file (or Kimi CLI's mcp.json when none is given and it exists), then each
// --mcp-config text.
func mcpSources(ctx context.Context, cli *Flags, env Env) ([]mcpSource, error) {
	var sources []mcpSource
	files := cli.MCPConfigFile
	if len(files) == 0 && !cli.Bare { // --bare: only the servers the command line names
		if def := ShareFile(env, "mcp.json"); def != "" {
			if _, err := os.Stat(def); err == nil {
				files = []string{def}
			} else if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
				// A HOME that is not a directory (HOME=/ or a file in containers) has no
				// default file, as for config.toml.
				return nil, Usagef("MCP config %s: %v", def, err)
			}
		}
	}
	for _, f := range files {
		data, err := infile.Read(ctx, f, infile.MCPConfig)
		if err != nil {
			return nil, Usagef("MCP config file: %w", err)
		}
		sources = append(sources, mcpSource{name: "MCP config " + f, text: string(data), file: f})
	}
	for i, text := range cli.MCPConfig {
		sources = append(sources, mcpSource{name: fmt.Sprintf("--mcp-config #%d", i+1), text: text})
	}
	return sources, nil
}

// parseMCPConfig decodes one mcp.json text and checks each server: it needs a command or a
// URL (not both) and a transport kimi-run speaks.
func parseMCPConfig(data []byte) (map[string]mcpEntry, []string, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, nil, fmt.Errorf("not valid JSON: %v", OneLine(err))
	}
	if top == nil {
		return nil, nil, errors.New(`want a JSON object like {"mcpServers": {...}}`)
	}
	raw, ok := top["mcpServers"]
	if !ok {
		return nil, nil, nil
	}
	var servers map[string]json.RawMessage
	if err := json.Unmarshal(raw, &servers); err != nil {
		return nil, nil, fmt.Errorf(`"mcpServers" must be an object of servers by name`)
	}
	out := map[string]mcpEntry{}
	var warnings []string
	for name, raw := range servers {
		if strings.TrimSpace(name) == "" {
			return nil, nil, errors.New("a server has an empty name")
		}
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(raw, &keys); err != nil || keys == nil {
			return nil, nil, fmt.Errorf("server %q: want an object", name)
		}
		var e mcpEntry
		dec := json.NewDecoder(bytes.NewReader(raw))
		if err := dec.Decode(&e); err != nil {
			return nil, nil, fmt.Errorf("server %q: %v", name, OneLine(err))
		}
		var unknown []string
		for k := range keys {
			if !slices.Contains(mcpKnownKeys, k) {
				unknown = append(unknown, k)
			}
		}
		if len(unknown) > 0 {
			sort.Strings(unknown)
			warnings = append(warnings, fmt.Sprintf("MCP server %q: ignoring settings kimi-run does not support: %s", name, strings.Join(unknown, ", ")))
		}
		if _, err := e.transport(); err != nil {
			return nil, nil, fmt.Errorf("server %q: %v", name, err)
		}
		out[name] = e
	}
	sort.Strings(warnings)
	return out, warnings, nil
}

// transport decides how to reach the server.
func (e mcpEntry) transport() (mcp.Transport, error) {
	t := strings.ToLower(firstSet(e.Transport, e.Type))
	switch {
	case e.Command != "" && e.URL != "":
		return "", errors.New(`give either "command" (stdio) or "url" (HTTP), not both`)
	case e.Command == "" && e.URL == "":
		return "", errors.New(`needs "command" (a stdio server) or "url" (an HTTP server)`)
	case e.Command != "":
		if t != "" && t != "stdio" {
			return "", fmt.Errorf(`transport %q needs "url", not "command"`, t)
		}
		return mcp.Stdio, nil
	}
	u, err := url.Parse(e.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("url %q: want http(s)://host/path", RedactURL(e.URL))
	}
	switch t {
	case "http", "streamable-http", "streamable_http", "streamablehttp":
		return mcp.HTTP, nil
	case "sse":
		return mcp.SSE, nil
	case "":
		// As FastMCP (which Kimi CLI uses) infers: an endpoint ending in /sse is the older
		// SSE transport, anything else streamable HTTP.
		if strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/sse") {
			return mcp.SSE, nil
		}
		return mcp.HTTP, nil
	case "stdio":
		return "", errors.New(`transport "stdio" needs "command", not "url"`)
	}
	return "", fmt.Errorf("unknown transport %q (want stdio, http or sse)", t)
}

// trustedServers reads [sandbox] trusted_mcp_servers, a list of server names; anything
// else is a warning, and trusts nobody.
func trustedServers(fc *fileConfig, warnings *[]string) []string {
	v, ok := subtable(fc.tree(), "sandbox")["trusted_mcp_servers"]
	if !ok {
		return nil
	}
	list, isList := v.([]any)
	names := make([]string, 0, len(list))
	for _, n := range list {
		name, isString := n.(string)
		if !isString || name == "" {
			isList = false
			break
		}
		names = append(names, name)
	}
	if !isList {
		*warnings = append(*warnings, "config: sandbox.trusted_mcp_servers must be a list of MCP server names: ignored")
		return nil
	}
	return names
}

// server builds the server to start, expanding ${VAR} in env and header values.
func (e mcpEntry) server(name, workDir string, env Env) (mcp.Server, []string) {
	t, _ := e.transport() // checked when parsed
	s := mcp.Server{Name: name, Transport: t}
	var warnings []string
	missing := func(where string) func(string) {
		return func(v string) {
			warnings = append(warnings, fmt.Sprintf("MCP server %q: %s uses ${%s}, which is not set", name, where, v))
		}
	}
	if t == mcp.Stdio {
		s.Command, s.Args = e.Command, e.Args
		s.Dir = workDir
		if e.Cwd != "" {
			s.Dir = e.Cwd
			if !filepath.IsAbs(s.Dir) {
				s.Dir = filepath.Join(workDir, s.Dir)
			}
		}
		keys := make([]string, 0, len(e.Env))
		for k := range e.Env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			s.Env = append(s.Env, k+"="+expandVars(e.Env[k], env, missing("env "+k)))
		}
		if len(e.Headers) > 0 {
			warnings = append(warnings, fmt.Sprintf("MCP server %q: headers are for HTTP servers; ignored", name))
		}
		return s, warnings
	}
	s.URL = e.URL
	if len(e.Headers) > 0 {
		s.Headers = map[string]string{}
		for k, v := range e.Headers {
			s.Headers[k] = expandVars(v, env, missing("header "+k))
		}
	}
	if len(e.Env) > 0 || len(e.Args) > 0 || e.Cwd != "" {
		warnings = append(warnings, fmt.Sprintf("MCP server %q: env, args and cwd are for stdio servers; ignored", name))
	}
	sort.Strings(warnings)
	return s, warnings
}

// OverlayEnv returns base with each KEY=value of over set on top, replacing an earlier
// setting of the same key.
func OverlayEnv(base, over []string) []string {
	out := base
	for _, kv := range over {
		key, _, _ := strings.Cut(kv, "=")
		next := make([]string, 0, len(out)+1)
		for _, old := range out {
			if k, _, _ := strings.Cut(old, "="); k != key {
				next = append(next, old)
			}
		}
		out = append(next, kv)
	}
	return out
}

// varRef matches ${VAR} and ${VAR:-default}; compiled on first use, as most runs have no
// MCP configuration.
var varRef = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)
})

// expandVars replaces ${VAR} with the variable's value and ${VAR:-default} with the value
// or, when it is unset or empty, the default. A ${VAR} that is unset or empty becomes empty
// and is reported to missing. Nothing else is touched, so a lone $ stays as written.
func expandVars(s string, env Env, missing func(string)) string {
	re := varRef()
	return re.ReplaceAllStringFunc(s, func(ref string) string {
		m := re.FindStringSubmatch(ref)
		v := env.Getenv(m[1])
		switch {
		case v != "":
			return v
		case m[2] != "":
			return m[3]
		}
		missing(m[1])
		return ""
	})
}
