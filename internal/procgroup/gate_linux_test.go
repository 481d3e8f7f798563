package procgroup

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// This test binary acts as kimi-run's watchdog and gate when a Watcher starts it.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case WatchdogArg:
			os.Exit(Watchdog(os.Stdin))
		case GateArg:
			os.Exit(Gate(os.Args[2:], os.Stderr))
		}
	}
	os.Exit(m.Run())
}

// runWatched runs cmd to its end through Start with a watchdog (this test binary) and
// returns its stdout and the executable that acted as the gate.
func runWatched(t *testing.T, cmd *exec.Cmd) (stdout, exe string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	w := &Watcher{Exe: exe}
	defer w.Close()
	var out strings.Builder
	cmd.Stdout = &out
	if err := Start(cmd, w); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	return out.String(), exe
}

// A command started with a watchdog passes through the gate and is still itself: the
// process Start returns is the command (its $$), with its own $0, arguments, environment
// and directory, and the gate's pipe (descriptor 3) is not left open in it.
func TestGatedCommandIsTheCommand(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("sh", "-c", `echo "$$ $0 $1 $GATE_TEST $(pwd)"; test -e /proc/$$/fd/3 && echo leaked || echo closed`, "zero", "one")
	cmd.Env = append(os.Environ(), "GATE_TEST=kept")
	cmd.Dir = dir
	out, _ := runWatched(t, cmd)
	if filepath.Base(cmd.Path) == "sh" {
		t.Fatalf("the command did not go through the gate (path %s)", cmd.Path)
	}
	lines := strings.Fields(out)
	want := []string{strconv.Itoa(cmd.Process.Pid), "zero", "one", "kept", dir}
	if len(lines) < len(want) || strings.Join(lines[:len(want)], " ") != strings.Join(want, " ") {
		t.Fatalf("got %q, want it to start with %q", out, want)
	}
	if last := lines[len(lines)-1]; last != "closed" {
		t.Errorf("descriptor 3, the gate's pipe, is %s in the command", last)
	}
}

// A gate that never hears "go" (kimi-run died before listing the group) runs nothing.
func TestGateClosedRunsNothing(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	marker := filepath.Join(t.TempDir(), "ran")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, GateArg, "3", "/bin/sh", "sh", "-c", "touch "+marker)
	cmd.ExtraFiles = []*os.File{r}
	err = cmd.Run()
	r.Close()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 125 {
		t.Errorf("gate without go: %v, want exit 125", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran although the gate never opened")
	}
}

// A command named by a path relative to its directory runs through the gate from there,
// as Start would run it without one.
func TestGatedRelativeCommand(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hello"), []byte("#!/bin/sh\necho \"hello from $0\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("./hello")
	cmd.Dir = dir
	out, exe := runWatched(t, cmd)
	if cmd.Path != exe || out != "hello from ./hello\n" {
		t.Errorf("path %s, output %q: want the gate to run ./hello in its directory", cmd.Path, out)
	}
}
