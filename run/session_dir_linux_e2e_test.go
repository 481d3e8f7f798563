//go:build linux

package run_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// TestHomeIsRootForANonRootUser is the container case as it happens: HOME=/ and a user who
// may not write there. As root, the test runs the binary as nobody; as another user, it
// runs it as that user.
func TestHomeIsRootForANonRootUser(t *testing.T) {
	t.Parallel()
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		cred = &syscall.Credential{Uid: 65534, Gid: 65534}
	} else if err := syscall.Access("/", 2 /* W_OK */); err == nil {
		t.Skip("this user may write to /")
	}
	// nobody must be able to run the binary and enter the work dir.
	shared, err := os.MkdirTemp("", "kimi-run-nobody")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(shared) })
	os.Chmod(shared, 0o755)
	bin := filepath.Join(shared, "kimi-run")
	copyFile(t, binary, bin, 0o755)
	work := filepath.Join(shared, "work")
	os.Mkdir(work, 0o777)
	os.Chmod(work, 0o777)

	run := func(args ...string) (string, string, int) {
		srv := scripted.New(t, scripted.Text("All done."))
		cmd := exec.Command(bin, append([]string{"-w", work, "--retry-base-delay", "0"}, args...)...)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=/", "KIMI_API_KEY=" + testKey,
			"KIMI_MODEL_NAME=m", "KIMI_BASE_URL=" + srv.URL()}
		cmd.Env = append(cmd.Env, coverEnv()...)
		cmd.Dir = work
		if cred != nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		}
		r := runCmd(t, cmd)
		return r.stdout, r.stderr, r.code
	}
	stdout, stderr, code := run("-p", "do it")
	if code != 0 || stdout != "All done.\n" {
		t.Fatalf("exit %d, stdout %q\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "no session is kept") {
		t.Errorf("no warning about the session:\n%s", stderr)
	}
	if _, stderr, code := run("-p", "do it", "--session", "nightly"); code != 2 {
		t.Errorf("--session: exit %d, want 2\n%s", code, stderr)
	}
	// A read-only --session-dir (0500, and not this user's when run as nobody).
	ro := filepath.Join(shared, "ro")
	os.Mkdir(ro, 0o500)
	os.Chmod(ro, 0o500)
	if stdout, stderr, code := run("-p", "do it", "--session-dir", ro); code != 0 || stdout != "All done.\n" || !strings.Contains(stderr, "no session is kept") {
		t.Errorf("read-only --session-dir: exit %d, stdout %q\n%s", code, stdout, stderr)
	}
}

// copyFile copies an executable with cp rather than in this process: tests run in parallel
// and fork, and a child forked while this process held the new file open for writing keeps
// it open until it execs, so running the copy then fails with "text file busy" (ETXTBSY).
func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	if out, err := exec.Command("cp", from, to).CombinedOutput(); err != nil {
		t.Fatalf("cp %s: %v\n%s", from, err, out)
	}
	if err := os.Chmod(to, mode); err != nil {
		t.Fatal(err)
	}
}
