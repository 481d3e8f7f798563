// Package procgroup holds the process attributes every child kimi-run starts gets: Shell
// commands, hook commands and MCP servers. Each starts a session of its own, which is also
// a process group, so the whole group can be signalled at once and nothing in it can stop
// to read a terminal. On Linux each also gets a parent-death signal, SIGKILL: when kimi-run
// dies, even by SIGKILL, the child it started dies with it.
//
// The kernel sends the parent-death signal when the thread that started the child ends,
// not the process. The Go runtime ends a thread only when a goroutine that locked it
// (runtime.LockOSThread) returns without unlocking it; kimi-run's own process never does
// that, so the thread that started a child lives as long as kimi-run.
package procgroup
