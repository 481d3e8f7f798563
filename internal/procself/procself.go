// Package procself hides kimi-run's credentials from its own /proc entries. The process
// holds them where another process may read them: the environment block the kernel shows
// as /proc/PID/environ (KIMI_API_KEY), the argument block of /proc/PID/cmdline (an api_key
// in --config), and its memory. A command the run
// starts reads them as `tr '\0' '\n' </proc/$PPID/environ`, with or without the sandbox:
// Landlock refuses ptrace and /proc/PID/mem of a process outside the sandbox, not
// environ. So when run.Main is the process itself (run.IO.Self):
//
//   - the process is made non-dumpable (PR_SET_DUMPABLE 0) at once: a process of the same
//     user can no longer attach to it or read its memory or environ (root still can);
//   - the Go environment and the arguments are copied off the original blocks, which the
//     runtime's strings point into, so that the blocks can be changed under nobody;
//   - once the run knows its secrets (start), every secret, and every value of a variable
//     kimi-run reads a key from, is overwritten with '*' in both blocks, through
//     /proc/self/mem opened before the process stopped being dumpable.
//
// What remains is said in docs/sandbox.md: the window before start, and the environment of
// kimi-run's ancestors (the shell that exported the key), which only they can clear.
package procself

import (
	"bytes"
	"os"
	"strings"
	"syscall"
)

// Self is the handle on kimi-run's own process; nil where there is nothing to do.
type Self struct {
	mem *os.File // /proc/self/mem, read-write; nil when it could not be opened
	err error    // why it could not, for Hide to report
}

// rehome copies the Go environment and args off the process's original blocks: the
// runtime's environment strings, and os.Args, point into them.
func rehome(args []string) []string {
	for _, kv := range syscall.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			syscall.Setenv(k, strings.Clone(v))
		}
	}
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = strings.Clone(a)
	}
	return out
}

// maskBlock overwrites with '*', in a NUL-separated block of strings, every occurrence of
// each form and, when vars is set (the environment block), the value of each variable it
// picks. It reports whether it changed anything.
func maskBlock(block []byte, forms [][]byte, vars func(name string) bool) bool {
	changed := false
	mask := func(b []byte) {
		for i := range b {
			if b[i] != '*' {
				b[i] = '*'
				changed = true
			}
		}
	}
	for _, f := range forms {
		if len(f) == 0 {
			continue
		}
		for rest := block; ; {
			i := bytes.Index(rest, f)
			if i < 0 {
				break
			}
			mask(rest[i : i+len(f)])
			rest = rest[i+len(f):]
		}
	}
	if vars != nil {
		for entry := range bytes.SplitSeq(block, []byte{0}) {
			if k, v, ok := bytes.Cut(entry, []byte{'='}); ok && vars(string(k)) {
				mask(v)
			}
		}
	}
	return changed
}

// Close lets go of /proc/self/mem, where Hide has not.
func (p *Self) Close() {
	if p != nil && p.mem != nil {
		p.mem.Close()
	}
}
