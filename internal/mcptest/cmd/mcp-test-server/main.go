// Command mcp-test-server runs the mcptest server over stdio for kimi-run's end-to-end tests
// and benchmarks. Flags make it misbehave the ways real servers do.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kimi-run/kimi-run/internal/mcptest"
)

func main() {
	name := flag.String("name", "test", "the server's name, reported by echo")
	delay := flag.Duration("delay", 0, "wait this long before serving (a slow start)")
	hang := flag.Bool("hang", false, "read stdin but never answer, not even initialize")
	fail := flag.String("fail", "", "print this on stderr and exit 1 at once")
	stderr := flag.String("stderr", "", "print this line on stderr at start")
	banner := flag.String("stdout", "", "print this line on stdout before serving (a banner that is not JSON-RPC)")
	pidFile := flag.String("pidfile", "", "append the server's pid to this file")
	childPidFile := flag.String("child-pidfile", "", "start a child process (sleep) and append its pid to this file")
	extra := flag.String("extra", "", "comma-separated names of more echo-like tools")
	touch := flag.String("touch", "", "create this file at start, and go on if that fails (a server writing where it should not)")
	flag.Parse()

	if *fail != "" {
		fmt.Fprintln(os.Stderr, *fail)
		os.Exit(1)
	}
	if *pidFile != "" {
		writePID(*pidFile, os.Getpid())
	}
	if *childPidFile != "" {
		child := exec.Command("sleep", "300")
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "starting the child:", err)
			os.Exit(1)
		}
		writePID(*childPidFile, child.Process.Pid)
	}
	if *stderr != "" {
		fmt.Fprintln(os.Stderr, *stderr)
	}
	if *banner != "" {
		fmt.Println(*banner)
	}
	if *touch != "" {
		if err := os.WriteFile(*touch, []byte("written by the server\n"), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "touch:", err)
		}
	}
	if *hang {
		io.Copy(io.Discard, os.Stdin)
		time.Sleep(time.Hour) // stdin closed: still do not go; the client has to kill us
	}
	time.Sleep(*delay)
	opts := mcptest.Options{Name: *name, Crash: func() {
		fmt.Fprintln(os.Stderr, "crashing on purpose")
		os.Exit(3)
	}}
	if *extra != "" {
		opts.Extra = strings.Split(*extra, ",")
	}
	if err := mcptest.NewServer(opts).Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "serving:", err)
		os.Exit(1)
	}
}

// writePID appends pid and a newline to path in one write, so a test that finds the newline
// has the whole number, and a server started twice leaves two lines.
func writePID(path string, pid int) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	f.WriteString(strconv.Itoa(pid) + "\n")
	f.Close()
}
