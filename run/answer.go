package run

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kimi-run/kimi-run/internal/infile"
)

// writeAnswer writes the final answer to the --output-last-message file: the same bytes
// text mode prints on stdout (the text ending in one newline, nothing for a blank
// answer), scrubbed of the key. It goes through a temporary file in the same directory
// and a rename, so a reader never sees half an answer and a failed run never leaves the
// previous run's answer in place.
func writeAnswer(path, text string, scrub func(string) string) error {
	text = strings.TrimRight(scrub(text), "\r\n")
	if strings.TrimSpace(text) == "" {
		text = ""
	} else {
		text += "\n"
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write the answer file: %w", err)
	}
	tmp := f.Name()
	_, werr := f.WriteString(text)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		// CreateTemp makes the file 0600; an answer is for the job's other steps to read.
		werr = os.Chmod(tmp, 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		os.Remove(tmp)
		return fmt.Errorf("write the answer file %s: %w", path, werr)
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

// exitIf is ExitError when err is set, else ExitOK.
func exitIf(err error) ExitCode {
	if err != nil {
		return ExitError
	}
	return ExitOK
}
