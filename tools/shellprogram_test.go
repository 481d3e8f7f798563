package tools

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestPickShell covers the shell Shell runs on each system, and the name the system prompt
// gives it (ShellInfo), including Windows, which this machine cannot run: before, the prompt
// told the model "cmd" there while Shell ran bash or PowerShell.
func TestPickShell(t *testing.T) {
	onPath := func(names ...string) func(string) (string, error) {
		return func(n string) (string, error) {
			if slices.Contains(names, n) {
				return `/found/` + n, nil
			}
			return "", errors.New("not found")
		}
	}
	tests := []struct {
		name     string
		goos     string
		look     func(string) (string, error)
		wantName string
		wantPath string
		wantArgs []string
		wantRun  string // as the Shell tool's descriptions say it
	}{
		{"linux with bash", "linux", onPath("bash", "sh"), "bash", "/found/bash", []string{"-c", "ls"}, "bash -c"},
		{"linux without bash", "linux", onPath("sh"), "sh", "/found/sh", []string{"-c", "ls"}, "sh -c"},
		{"linux with neither on PATH", "linux", onPath(), "sh", "/bin/sh", []string{"-c", "ls"}, "sh -c"},
		{"windows with Git Bash", "windows", onPath("bash", "sh"), "bash", "/found/bash", []string{"-c", "ls"}, "bash -c"},
		{"windows without bash", "windows", onPath("sh"), "Windows PowerShell", "powershell.exe",
			[]string{"-NoProfile", "-NonInteractive", "-Command", "ls"}, "Windows PowerShell (powershell.exe -Command)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := pickShell(tt.goos, tt.look)
			if s.Name != tt.wantName || s.Path != tt.wantPath {
				t.Errorf("shell %q at %q, want %q at %q", s.Name, s.Path, tt.wantName, tt.wantPath)
			}
			if got := s.args("ls"); !slices.Equal(got, tt.wantArgs) {
				t.Errorf("args %q, want %q", got, tt.wantArgs)
			}
			if got := s.run(); got != tt.wantRun {
				t.Errorf("run %q, want %q", got, tt.wantRun)
			}
		})
	}
}

// TestShellInfoNamesTheShellRun checks that the shell the prompt names is the program
// Shell starts, and that the tool's descriptions name it too.
func TestShellInfoNamesTheShellRun(t *testing.T) {
	_, path := ShellInfo()
	if prog, _ := shellCommand("true"); prog != path {
		t.Errorf("Shell runs %q, ShellInfo names %q", prog, path)
	}
	tool := NewShell(Env{})
	run := "with " + theShell().run() + " "
	if !strings.Contains(tool.Description(), run) {
		t.Errorf("the description does not say %q:\n%s", run, tool.Description())
	}
	if !strings.Contains(string(tool.Schema()), "with "+theShell().run()+`"`) {
		t.Errorf("the command's description does not say %q: %s", run, tool.Schema())
	}
}
