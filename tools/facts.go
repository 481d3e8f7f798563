package tools

// Facts are what a tool does besides answering the model, declared by the tool itself (its
// Facts method; New takes them). The run's checks follow from them, never from tool names:
// the sandbox's write check and network refusal, which MCP tools a subagent gets, which
// tools a subagent may have, and the built-in agents' tool lists. The zero value is the
// careful one: a tool that changes things and runs in kimi-run's process, where the sandbox
// checks it.
type Facts struct {
	// ReadsFiles says the tool reads files. Reading is allowed everywhere in every sandbox
	// mode, so nothing checks it.
	ReadsFiles bool
	// WritesFiles says the tool writes files. A tool that runs InProcess names the file
	// in the argument PathArg, which the sandbox checks before each call; one that does
	// not is refused every call under a sandbox that restricts writes.
	WritesFiles bool
	// PathArg is the argument that holds the path of the file read or written (a string
	// property of the schema), or "" when no one argument does (Shell's command may touch
	// any file).
	PathArg string
	// Network says the tool reaches the network (MCP's openWorldHint). The sandbox
	// refuses an InProcess one when the network is cut.
	Network bool
	// ReadOnly says the tool changes nothing outside the conversation: no file, process,
	// plan or remote state (MCP's readOnlyHint).
	ReadOnly bool
	// Destructive says a change may delete or overwrite what was there rather than only add
	// (MCP's destructiveHint); it means nothing for a ReadOnly tool. Nothing refuses on it.
	Destructive bool
	// Where is where the work happens, which decides how the sandbox holds the tool.
	Where Where
	// RootOnly says the tool acts on the agent that calls it: it starts subagents or
	// rewinds the conversation. A subagent never gets it, so delegation cannot nest and a
	// subagent cannot rewind its parent.
	RootOnly bool
	// OptIn says the default agent leaves the tool out; an agent file that names it (or a
	// flag such as --dmail) brings it in.
	OptIn bool
}

// Where is where a tool's work happens.
type Where uint8

const (
	// InProcess: kimi-run's own code does the work, so the sandbox checks each call's
	// arguments against the facts (the path written, the network).
	InProcess Where = iota
	// InCommand: the tool runs commands under the sandbox's helper (Env.ShellPrefix),
	// where Landlock and seccomp confine whatever they do.
	InCommand
	// InServer: an MCP server the user configured does the work; kimi-run does not
	// confine it (docs/sandbox.md).
	InServer
)
