package config

import (
	"cmp"
	"os"
	"path/filepath"
	"time"

	"github.com/kimi-run/kimi-run/hooks"
)

// resolveFileSettings checks the file's hooks and reads its skill settings.
func (s *Settings) resolveFileSettings(fc *fileConfig) error {
	var err error
	if s.Hooks, err = checkHooks(fc.Hooks); err != nil {
		return err
	}
	s.Skills = Skills{ExtraDirs: fc.ExtraSkillDirs, MergeAll: fc.MergeAllAvailableSkills == nil || *fc.MergeAllAvailableSkills}
	return nil
}

// checkHooks checks the [[hooks]] of the config file. A hook that cannot work is a usage
// error: a guard the user relies on must not silently stop guarding.
func checkHooks(cfgs []hookConfig) ([]hooks.Hook, error) {
	hs := make([]hooks.Hook, len(cfgs))
	for i, c := range cfgs {
		hs[i] = hooks.Hook{Event: c.Event, Command: c.Command, Matcher: c.Matcher}
		if c.Timeout != nil {
			if *c.Timeout < 1 {
				return nil, Usagef("config file: hooks[%d] (event %q): timeout must be 1 to 600 seconds", i, c.Event)
			}
			hs[i].Timeout = time.Duration(*c.Timeout) * time.Second
		}
	}
	if _, err := hooks.New(hs); err != nil {
		return nil, Usagef("config file: %w", err)
	}
	return hs, nil
}

// resolveLoop applies the flags over [loop_control] over the defaults.
func (s *Settings) resolveLoop(lc loopControl) error {
	f := &s.Flags
	if err := lc.validate(); err != nil {
		return err
	}
	l := &s.Loop
	if l.MaxSteps = f.MaxSteps; l.MaxSteps < 1 {
		return Usagef("%s must be at least 1, got %d", f.From("max-steps"), l.MaxSteps)
	}
	if s.Ralph < -1 {
		return Usagef("%s must be -1 (no limit), 0 (off) or a positive number of extra iterations", f.From("ralph"))
	}
	l.Attempts = cmp.Or(deref(lc.MaxRetriesPerStep), DefaultAttempts)
	if f.MaxRetries != nil {
		if *f.MaxRetries < 0 {
			return Usagef("--max-retries must be 0 (try once) or more, got %d", *f.MaxRetries)
		}
		l.Attempts = *f.MaxRetries + 1
	}
	if f.MaxRetriesPerStep > 0 {
		// Kimi's flag counts attempts in total, the first included.
		l.Attempts = f.MaxRetriesPerStep
	}
	l.Reserve, l.TriggerRatio = deref(lc.ReservedContextSize), deref(lc.CompactionTriggerRatio)
	return nil
}

// resolveWorkDir is --work-dir (default: the current directory), absolute; it must be a
// directory.
func (s *Settings) resolveWorkDir() error {
	abs, err := s.Flags.AbsWorkDir()
	if err != nil {
		return err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return Usagef("work dir %s is not a directory", cmp.Or(s.Flags.WorkDir, abs))
	}
	s.WorkDir = abs
	return nil
}

// AbsWorkDir is --work-dir (default: the current directory), absolute.
func (f *Flags) AbsWorkDir() (string, error) {
	dir := f.WorkDir
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return "", Usagef("cannot find the current directory: %v", err)
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", Usagef("work dir %s: %v", dir, err)
	}
	return abs, nil
}
