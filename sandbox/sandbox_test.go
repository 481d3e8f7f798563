package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

func TestCanWrite(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links")
	}
	root := t.TempDir()
	work, add, tmp, outside := filepath.Join(root, "work"), filepath.Join(root, "add"), filepath.Join(root, "tmp"), filepath.Join(root, "outside")
	for _, d := range []string{work, add, tmp, outside} {
		os.Mkdir(d, 0o755)
	}
	// Links inside the work dir that lead out of it, to a directory and to a file.
	os.Symlink(outside, filepath.Join(work, "out-dir"))
	os.WriteFile(filepath.Join(outside, "target"), nil, 0o644)
	os.Symlink(filepath.Join(outside, "target"), filepath.Join(work, "out-file"))
	os.Symlink(filepath.Join(work, "sub"), filepath.Join(outside, "in-link"))
	os.Mkdir(filepath.Join(work, "sub"), 0o755)

	ww := Policy{Mode: WorkspaceWrite, Writable: []string{work, add}, TempDir: tmp}
	ro := Policy{Mode: ReadOnly, Writable: []string{work, add}, TempDir: tmp}
	tests := []struct {
		path   string
		ww, ro bool
	}{
		{filepath.Join(work, "new.txt"), true, false},
		{filepath.Join(work, "a", "b", "deep.txt"), true, false},
		{work, true, false},
		{filepath.Join(add, "x"), true, false},
		{filepath.Join(tmp, "x"), true, true},
		{filepath.Join(outside, "x"), false, false},
		{filepath.Join(work, "..", "outside", "x"), false, false},
		{filepath.Join(work, "out-dir", "x"), false, false},
		{filepath.Join(work, "out-file"), false, false},
		{filepath.Join(outside, "in-link", "x"), true, false}, // really inside the work dir
		{root + "/work-sibling/x", false, false},              // a shared prefix is not "below"
		{"/etc/passwd", false, false},
	}
	for _, tt := range tests {
		for _, c := range []struct {
			p    Policy
			want bool
		}{{ww, tt.ww}, {ro, tt.ro}} {
			err := c.p.CanWrite(tt.path)
			if (err == nil) != c.want {
				t.Errorf("%s: CanWrite(%s) = %v, want allowed %v", c.p.Mode, tt.path, err, c.want)
			}
			var de *DeniedError
			if err != nil && !errors.As(err, &de) {
				t.Errorf("CanWrite(%s) = %v, want a *DeniedError", tt.path, err)
			}
		}
	}
	if err := (Policy{Mode: Off, NoNetwork: true}).CanWrite("/etc/passwd"); err != nil {
		t.Errorf("with the file system unrestricted, CanWrite = %v", err)
	}
}

func TestCommandEnv(t *testing.T) {
	p := Policy{Mode: ReadOnly, TempDir: "/tmp/run-1", NoNetwork: true}
	env := p.CommandEnv([]string{"PATH=/bin", "TMPDIR=/var/tmp", "TMP=/x", "KIMI_RUN_SANDBOX=stale", "HOME=/root"})
	for _, want := range []string{"PATH=/bin", "HOME=/root", "TMPDIR=/tmp/run-1", "TMP=/tmp/run-1", "TEMP=/tmp/run-1", "KIMI_RUN_SANDBOX=read-only,no-network"} {
		if !slices.Contains(env, want) {
			t.Errorf("env lacks %s: %q", want, env)
		}
	}
	for _, gone := range []string{"TMPDIR=/var/tmp", "TMP=/x", "KIMI_RUN_SANDBOX=stale"} {
		if slices.Contains(env, gone) {
			t.Errorf("env keeps %s", gone)
		}
	}
}

func TestPolicyRoundTrip(t *testing.T) {
	p := Policy{Mode: WorkspaceWrite, Writable: []string{"/w", "/a b"}, TempDir: "/t", NoNetwork: true}
	spec, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParsePolicy(spec)
	if err != nil || !slices.Equal(got.Writable, p.Writable) || got.Mode != p.Mode || got.TempDir != p.TempDir || !got.NoNetwork {
		t.Errorf("ParsePolicy = %+v, %v; want %+v", got, err, p)
	}
	for _, bad := range []string{`{"mode":"wide-open"}`, `not json`} {
		if _, err := ParsePolicy(bad); err == nil {
			t.Errorf("ParsePolicy(%s) succeeded", bad)
		}
	}
}
