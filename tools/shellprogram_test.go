package tools

import (
	"errors"
	"slices"
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
	}{
		{"linux with bash", "linux", onPath("bash", "sh"), "bash", "/found/bash", []string{"-c", "ls"}},
		{"linux without bash", "linux", onPath("sh"), "sh", "/found/sh", []string{"-c", "ls"}},
		{"linux with neither on PATH", "linux", onPath(), "sh", "/bin/sh", []string{"-c", "ls"}},
		{"windows with Git Bash", "windows", onPath("bash", "sh"), "bash", "/found/bash", []string{"-c", "ls"}},
		{"windows without bash", "windows", onPath("sh"), "Windows PowerShell", "powershell.exe",
			[]string{"-NoProfile", "-NonInteractive", "-Command", "ls"}},
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
		})
	}
}

// TestShellInfoNamesTheShellRun checks that the shell the prompt names is the program
// Shell starts.
func TestShellInfoNamesTheShellRun(t *testing.T) {
	_, path := ShellInfo()
	if prog, _ := shellCommand("true"); prog != path {
		t.Errorf("Shell runs %q, ShellInfo names %q", prog, path)
	}
}
