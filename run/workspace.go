package run

import (
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/kimi-run/kimi-run/agent"
	"github.com/kimi-run/kimi-run/agentspec"
	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/skills"
	"github.com/kimi-run/kimi-run/tools"
)

// findSkills discovers the skills of the run: --skills-dir (which must exist) or the
// project's and the user's, then extra_skill_dirs from the config file.
func findSkills(s *config.Settings) (*skills.Set, error) {
	cli, getenv := &s.Flags, s.Env.Getenv
	for _, d := range cli.SkillsDir {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return nil, usagef("--skills-dir %s is not a directory", d)
		}
	}
	dirs := make([]string, len(cli.SkillsDir))
	for i, d := range cli.SkillsDir {
		dirs[i], _ = filepath.Abs(d)
	}
	home := getenv("HOME")
	if home == "" && runtime.GOOS == "windows" {
		home = getenv("USERPROFILE")
	}
	return skills.Find(skills.Options{
		WorkDir:        s.WorkDir,
		ProjectRoot:    agent.ProjectRoot(s.WorkDir),
		Home:           home,
		SkillsDirs:     dirs,
		ExtraDirs:      s.Skills.ExtraDirs,
		FirstBrandOnly: !s.Skills.MergeAll,
		// --bare: no skill the machine or the work dir holds, only --skills-dir's.
		NoDiscovery: cli.Bare,
	}), nil
}

// promptVars are the built-in variables of the system prompt templates.
func promptVars(workDir string, dirs []string, found *skills.Set, sandbox string, bare bool) map[string]string {
	name, path := tools.ShellInfo()
	return agent.PromptVars(agent.PromptEnv{
		WorkDir: workDir, Now: time.Now(), GOOS: runtime.GOOS, ShellName: name, ShellPath: path,
		AddDirs: dirs, Skills: found.PromptList(), Sandbox: sandbox, NoAgentsMD: bare,
	})
}

// workspace is what a run's agent knows about where it works: the extra directories, the
// skills and the agent with its rendered prompts.
type workspace struct {
	addDirs []string
	skills  *skills.Set
	agent   *agentspec.Setup
}

// setupWorkspace checks --skills-dir and the agent flags, finds the skills and
// renders the prompts (sandbox says what --sandbox allows); warn reports what the user asked for that is left out.
func setupWorkspace(s *config.Settings, dirs []string, sandbox string, warn func(string)) (*workspace, error) {
	found, err := findSkills(s)
	if err != nil {
		return nil, err
	}
	for _, w := range found.Warnings {
		warn(w)
	}
	// The agent's prompts (config.Resolve loaded it): one that does not render is a usage
	// error before any model call.
	a, err := s.Agent.Setup(s.Flags.DMail, promptVars(s.WorkDir, dirs, found, sandbox, s.Flags.Bare))
	if err != nil {
		return nil, usagef("%w", err)
	}
	for _, w := range a.Spec.Warnings {
		warn(w)
	}
	return &workspace{addDirs: dirs, skills: found, agent: a}, nil
}
