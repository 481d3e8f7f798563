package procgroup

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
)

// GateArg is the first argument of kimi-run's gate mode (see Gate).
const GateArg = "__kimi-run-gate"

// gate makes cmd start through the gate when the watchdog runs: the child is kimi-run in
// GateArg mode, which waits on a pipe until its group is listed and only then becomes the
// command (same process, same group). Without it a SIGKILL of kimi-run between the start
// and the listing would leave whatever the command forked in that moment running, with no
// watchdog knowing its group. open, called once the start is over, lets the gate go on
// (listed: true) or makes it exit without running anything; it is a no-op when cmd is not
// gated (no watchdog, or cmd could not be resolved).
func (wa *Watcher) gate(cmd *exec.Cmd) (open func(listed bool)) {
	none := func(bool) {}
	if cmd.Err != nil {
		return none
	}
	// A relative path names a file in cmd.Dir, as Start reads it.
	path := cmd.Path
	if !filepath.IsAbs(path) {
		abs, err := filepath.Abs(filepath.Join(cmd.Dir, path))
		if err != nil {
			return none
		}
		path = abs
	}
	if _, err := exec.LookPath(path); err != nil {
		return none // let Start report the missing or unrunnable command as before
	}
	if !wa.ready() {
		return none
	}
	r, w, err := os.Pipe()
	if err != nil {
		return none
	}
	fd := 3 + len(cmd.ExtraFiles)
	cmd.ExtraFiles = append(cmd.ExtraFiles, r)
	// The gate runs in cmd.Dir and execs cmd.Path as given, so a script sees the same $0.
	cmd.Args = append([]string{wa.Exe, GateArg, strconv.Itoa(fd), cmd.Path}, cmd.Args...)
	cmd.Path = wa.Exe
	return func(listed bool) {
		r.Close()
		if listed {
			_, _ = io.WriteString(w, "go\n")
		}
		w.Close()
	}
}

// Gate is the gate mode: args are the pipe's descriptor, the command's path and its
// argument list (argv[0] first). It waits for the word to go, then replaces itself with
// the command; it returns only when it may not or cannot, with the status to exit with.
func Gate(args []string, stderr io.Writer) int {
	if len(args) < 3 {
		fmt.Fprintln(stderr, "kimi-run: gate: missing arguments")
		return 125
	}
	fd, err := strconv.Atoi(args[0])
	if err != nil || fd < 3 {
		fmt.Fprintf(stderr, "kimi-run: gate: bad descriptor %q\n", args[0])
		return 125
	}
	pipe := os.NewFile(uintptr(fd), "gate")
	var word [3]byte
	n, _ := io.ReadFull(pipe, word[:])
	pipe.Close()
	if n != len(word) || string(word[:]) != "go\n" {
		return 125 // kimi-run died or failed before listing the group: run nothing
	}
	err = execve(args[1], args[2:], os.Environ())
	fmt.Fprintf(stderr, "kimi-run: cannot run %s: %v\n", args[1], err)
	return 127
}
