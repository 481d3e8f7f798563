package run

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/internal/atomicfile"
	"github.com/kimi-run/kimi-run/internal/infile"
)

// writeAnswer writes the final answer to the --output-last-message file: the same bytes
// text mode prints on stdout (the text ending in one newline, nothing for a blank
// answer), scrubbed of the key, readable by the job's other steps (0644). It is written
// with atomicfile's guarantee, so a reader never sees half an answer and a failed write
// never leaves part of one in place.
func writeAnswer(path, text string, scrub func(string) string) error {
	text = strings.TrimRight(scrub(text), "\r\n")
	if strings.TrimSpace(text) == "" {
		text = ""
	} else {
		text += "\n"
	}
	if err := atomicfile.Write(path, []byte(text), 0o644); err != nil {
		return fmt.Errorf("write the answer file %s: %w", path, err)
	}
	return nil
}

// checkAnswerFile finds out before any model call whether the --output-last-message file
// can be written where it is asked for: its directory exists and takes a new file, and
// the path is not a directory. The probe file is removed at once.
func checkAnswerFile(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return usagef("--output-last-message %s is a directory", path)
	} else if err == nil && !fi.Mode().IsRegular() {
		// The answer replaces the file by a rename: a FIFO or a device (as root, /dev/null
		// itself) would be replaced, not written to.
		return usagef("--output-last-message: %v; the answer file is replaced whole when written", &infile.NotRegularError{Path: path, Mode: fi.Mode()})
	}
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return usagef("--output-last-message %s: the directory %s does not exist", path, dir)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return usagef("--output-last-message %s: cannot create a file in %s: %w", path, dir, errors.Unwrap(err))
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// answerInSession reports whether the --output-last-message file lies in the folder of the
// session the run names with --session, a folder not made yet: the session's first run
// makes it (a Kubernetes Job's -o /sessions/$(JOB_NAME)/answer.md on a fresh volume).
func answerInSession(path string, s *config.Settings) bool {
	if path == "" || s.Session == "" || s.Flags.NoSession {
		return false
	}
	root, err := sessionRoot(s.Flags.SessionDir, s.WorkDir, s.Env)
	abs, absErr := filepath.Abs(path)
	if err != nil || absErr != nil || filepath.Dir(abs) != filepath.Join(root, s.Session) {
		return false
	}
	_, err = os.Stat(filepath.Dir(abs))
	return errors.Is(err, fs.ErrNotExist)
}

// exitIf is ExitError when err is set, else ExitOK.
func exitIf(err error) ExitCode {
	if err != nil {
		return ExitError
	}
	return ExitOK
}
