package session

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/kimi-run/kimi-run/model"
)

// tinyDisk mounts a 64 KiB tmpfs for the test, or skips it where mounting is not permitted
// (no root, a container without CAP_SYS_ADMIN).
func tinyDisk(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size=64k"); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
	return dir
}

// TestSessionDiskFull fills a tiny disk mid-conversation, as issue 17 #9 did: the session
// reports ENOSPC, and what it left restores to a conversation a provider accepts.
func TestSessionDiskFull(t *testing.T) {
	path := filepath.Join(tinyDisk(t), "s", "context.jsonl")
	s, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SystemPrompt("be brief"); err != nil {
		t.Fatal(err)
	}
	out := strings.Repeat("x", 3000)
	var werr error
	for i := 0; werr == nil; i++ {
		id := fmt.Sprintf("c%d", i)
		for _, m := range []model.Message{
			{Role: model.RoleAssistant, ToolCalls: []model.CallSpec{{ID: id, Name: "Shell", Arguments: "{}"}}},
			{Role: model.RoleTool, ToolCallID: id, Name: "Shell", Content: out},
		} {
			if werr = s.Append(m); werr != nil {
				break
			}
		}
		if i > 1000 {
			t.Fatal("a 64 KiB disk never filled")
		}
	}
	if !errors.Is(werr, syscall.ENOSPC) {
		t.Fatalf("write error %v, want ENOSPC", werr)
	}
	s.Close()
	got, err := Read(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := validConversation(got.Messages); err != nil {
		t.Error(err)
	}
	if len(got.Messages) < 2 {
		t.Errorf("restored %d messages from a full disk's file", len(got.Messages))
	}
	s, reopened, err := Open(context.Background(), path)
	if err != nil {
		t.Fatalf("Open on a full disk: %v", err)
	}
	s.Close()
	if err := validConversation(reopened.Messages); err != nil {
		t.Error(err)
	}
}
