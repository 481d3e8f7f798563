package tools

import (
	"os/exec"
	"runtime"
	"sync"
)

// shellProgram is the shell Shell runs commands with. The system prompt names it from the
// same value (ShellInfo), so the model is told the shell its commands really meet.
type shellProgram struct {
	// Name is how the system prompt names the shell: bash, sh or Windows PowerShell (Kimi
	// CLI's names for them).
	Name string
	// Path is the program started.
	Path string
	// powerShell: the command goes after -Command rather than -c.
	powerShell bool
}

// powerShellPath is the program Shell falls back to on Windows without bash.
const powerShellPath = "powershell.exe"

// pickShell chooses the shell for an operating system (as runtime.GOOS names it) from
// what lookPath finds: bash when it is on PATH, so that commands written for bash keep
// working (on Windows: Git for Windows, MSYS2); otherwise sh on Unix and PowerShell on
// Windows.
func pickShell(goos string, lookPath func(string) (string, error)) shellProgram {
	if p, err := lookPath("bash"); err == nil {
		return shellProgram{Name: "bash", Path: p}
	}
	if goos == "windows" {
		return shellProgram{Name: "Windows PowerShell", Path: powerShellPath, powerShell: true}
	}
	if p, err := lookPath("sh"); err == nil {
		return shellProgram{Name: "sh", Path: p}
	}
	return shellProgram{Name: "sh", Path: "/bin/sh"}
}

// args returns the arguments that make the shell run command and exit.
func (s shellProgram) args(command string) []string {
	if s.powerShell {
		return []string{"-NoProfile", "-NonInteractive", "-Command", command}
	}
	return []string{"-c", command}
}

// run says how a command is run, for the Shell tool's descriptions: "bash -c".
func (s shellProgram) run() string {
	if s.powerShell {
		return s.Name + " (" + s.Path + " -Command)"
	}
	return s.Name + " -c"
}

// theShell is this machine's choice, made once.
var theShell = sync.OnceValue(func() shellProgram { return pickShell(runtime.GOOS, exec.LookPath) })

// shellCommand returns the program and arguments that run command in the shell.
func shellCommand(command string) (string, []string) {
	s := theShell()
	return s.Path, s.args(command)
}

// ShellInfo names the shell that Shell runs commands with, for the system prompt: its
// name (bash, sh or Windows PowerShell) and the program's path.
func ShellInfo() (name, path string) {
	s := theShell()
	return s.Name, s.Path
}
