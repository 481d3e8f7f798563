package tools

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sync"

	"github.com/kimi-run/kimi-run/internal/launch"
	"github.com/kimi-run/kimi-run/tools/background"
	"github.com/kimi-run/kimi-run/tools/search"
)

// Env is what the built-in tools need from the run that hosts them.
type Env struct {
	// WorkDir is the absolute directory that relative paths resolve against and that
	// commands run in.
	WorkDir string
	// Ripgrep is the path of the rg executable Grep and Glob may use; empty selects the
	// pure-Go engines. Callers fill it with LookRipgrep; tests leave it empty.
	Ripgrep string
	// HTTPClient is used by FetchURL; nil means a client with the tool's own timeouts.
	HTTPClient *http.Client
	// Search is Moonshot's search service ([services.moonshot_search]); SearchWeb is
	// offered only with it.
	Search *Service
	// Fetch is Moonshot's fetch service ([services.moonshot_fetch]): FetchURL asks it
	// first and fetches the page itself when it fails; nil fetches at once.
	Fetch *Service
	// Proxy, when set, is the proxy FetchURL goes through (--allow-host's): its refusals are
	// denials. Used when HTTPClient is nil.
	Proxy *url.URL
	// Todos receives every SetTodoList update; nil discards them.
	Todos func([]Todo)
	// Subagent runs Agent calls; nil leaves the Agent tool out.
	Subagent Subagent
	// SubagentTypes are the kinds of subagent Subagent knows, listed in the Agent tool's
	// description.
	SubagentTypes []SubagentType
	// AddDirs are more directories the agent may work in (--add-dir), absolute: relative
	// paths may lead into them as into the work dir.
	AddDirs []string
	// DMail delivers SendDMail calls; nil leaves the SendDMail tool out.
	DMail DMailer
	// ShellGroups, when set, records the process group of every Shell command, so that the
	// run can end what the commands left running in the background.
	ShellGroups *ShellGroups
	// Launcher starts Shell commands and rg: with the run's environment (kimi-run's
	// credentials left out), confined under the sandbox, ended with the run. nil starts
	// them from kimi-run itself with its environment.
	Launcher *launch.Launcher
	// Media says which media the model reads (image_in, video_in); ReadMediaFile is offered
	// when it reads any.
	Media MediaSupport
	// Tasks runs the background tasks Shell starts with run_in_background, which TaskList,
	// TaskOutput and TaskStop manage; nil: the run has none, and those calls fail.
	Tasks *background.Manager
	// WriteDirs, when set, opens the directories WriteFile and StrReplaceFile write in (the
	// sandbox's, which keeps the writes below its writable roots); the tools then refuse to
	// append through a file with more than one hard link, whose other name may be outside.
	// nil opens them plainly.
	WriteDirs DirOpener
	// Plan is plan mode, which EnterPlanMode and ExitPlanMode share; nil leaves them out.
	Plan *PlanMode
	// Changes, when set, hears of every change WriteFile and StrReplaceFile make to a file
	// (the session's before-images, for a rewind); nil: nobody does.
	Changes FileChanges
	// Settings are the run's knobs of the tools; a tool reads them with env.settings(),
	// where a field left zero is its default.
	Settings Settings
}

// settings are env.Settings, a field left zero set to its default.
func (env Env) settings() Settings { return env.Settings.withDefaults() }

// FileChanges hears of the changes the file tools make. Before is called just before a
// tool changes the file at path (absolute, links resolved), with the file as it is then,
// and returns once whatever it keeps is safe; After once the change is made or failed.
type FileChanges interface {
	Before(path string)
	After(path string)
}

// DirOpener opens a directory a write tool is about to write a file in. The tool creates,
// renames and opens the file relative to it, so the write lands in that very directory.
type DirOpener interface {
	OpenDir(dir string) (*os.File, error)
}

// LookRipgrep returns the rg executable found on path (a PATH value), for Env.Ripgrep, or
// "" when there is none. Relative entries and entries leading into avoid (the directories
// the run's commands may write) are skipped (search.LookRipgrep).
func LookRipgrep(path string, avoid ...string) string { return search.LookRipgrep(path, avoid...) }

// Todo is one entry of the agent's plan, as set by SetTodoList.
type Todo struct {
	Title  string `json:"title" description:"what to do, in a few words"`
	Status string `json:"status" enum:"pending,in_progress,done" description:"pending, in_progress or done"`
}

// Subagent runs a task in a fresh agent context, or in the context of one it ran before,
// and returns its final answer. The parent tool-call id is available to it through
// CallID(ctx).
type Subagent interface {
	RunSubagent(ctx context.Context, call SubagentCall) (SubagentAnswer, error)
}

// SubagentCall is one Agent call as the subagent runner takes it.
type SubagentCall struct {
	Description, Prompt string
	// Kind is the subagent_type; empty: coder.
	Kind string
	// Model, when set, names the model the subagent is to use (a [models] entry or a
	// model id); empty: the parent's.
	Model string
	// Resume, when set, is the ID of a subagent an earlier call ran, to continue.
	Resume string
}

// SubagentAnswer is what a subagent ran to.
type SubagentAnswer struct {
	// ID names the subagent, for a later call's Resume.
	ID string
	// Text is its final answer (or its last message, with an error).
	Text string
	// Note, when set, says how the call ran otherwise than asked (a model not used).
	Note string
	// Kind is the subagent's kind; Resumed says the call continued an earlier subagent.
	Kind    string
	Resumed bool
}

type callIDKey struct{}

// WithCallID returns a context that carries the id of the tool call being run.
func WithCallID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, callIDKey{}, id)
}

// CallID returns the id of the tool call being run, or "".
func CallID(ctx context.Context) string {
	id, _ := ctx.Value(callIDKey{}).(string)
	return id
}

type subagentKey struct{}

// WithSubagent returns a context that marks the tool call as a subagent's.
func WithSubagent(ctx context.Context) context.Context {
	return context.WithValue(ctx, subagentKey{}, true)
}

// InSubagent reports whether the tool call being run is a subagent's: the tools that act
// on the main agent's own state (background tasks) refuse it.
func InSubagent(ctx context.Context) bool {
	in, _ := ctx.Value(subagentKey{}).(bool)
	return in
}

// builtinTable is the one table of built-in tools, in the order they are offered to the
// model: Kimi CLI 1.49's default agent's order (src/kimi_cli/agents/default/agent.yaml),
// then the opt-in ones. A new tool is added here and nowhere else: what the run does with it follows from
// its Facts (the sandbox, subagents, the built-in agents' tool lists).
var builtinTable = []struct {
	make func(Env) Tool
	// offered says whether a run with env offers the tool; nil: always.
	offered func(Env) bool
}{
	{make: NewAgent, offered: func(env Env) bool { return env.Subagent != nil }},
	{make: NewAskUserQuestion},
	{make: NewSetTodoList},
	{make: NewShell},
	{make: NewTaskList},
	{make: NewTaskOutput},
	{make: NewTaskStop},
	{make: NewReadFile},
	{make: NewReadMediaFile, offered: func(env Env) bool { return env.Media.Any() }},
	{make: NewGlob},
	{make: NewGrep},
	{make: NewWriteFile},
	{make: NewStrReplaceFile},
	{make: NewSearchWeb, offered: func(env Env) bool { return env.Search != nil }},
	{make: NewFetchURL},
	{make: NewExitPlanMode, offered: func(env Env) bool { return env.Plan != nil }},
	{make: NewEnterPlanMode, offered: func(env Env) bool { return env.Plan != nil }},
	{make: NewThink},
	{make: NewSendDMail, offered: func(env Env) bool { return env.DMail != nil }},
}

// Builtins returns the built-in tools a run with env offers, in the order they are offered
// to the model.
func Builtins(env Env) []Tool {
	var ts []Tool
	for _, b := range builtinTable {
		if b.offered == nil || b.offered(env) {
			ts = append(ts, b.make(env))
		}
	}
	return ts
}

// allBuiltins are every built-in tool, built once on an empty Env.
var allBuiltins = sync.OnceValue(func() []Tool {
	ts := make([]Tool, len(builtinTable))
	for i, b := range builtinTable {
		ts[i] = b.make(Env{})
	}
	return ts
})

// AllBuiltins returns every built-in tool, whether or not a run offers it, in table order.
// They are built on an empty Env: for their names, schemas and facts, not to be run.
func AllBuiltins() []Tool { return slices.Clone(allBuiltins()) }
