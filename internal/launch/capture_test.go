package launch

import (
	"io"
	"testing"
	"time"
)

func TestCaptureCopiesBothOutputs(t *testing.T) {
	out, errOut := &Head{Max: 64}, &Head{Max: 64}
	c, err := NewCapture(out, errOut)
	if err != nil {
		t.Fatal(err)
	}
	// This process stands in for the child: it writes through the ends a child would get.
	if _, err := c.Stdout().WriteString("to stdout"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Stderr().WriteString("to stderr"); err != nil {
		t.Fatal(err)
	}
	c.Started()
	// The copies end with the last write end, long before this bound.
	c.Wait(time.Minute)
	if out.String() != "to stdout" || errOut.String() != "to stderr" {
		t.Errorf("stdout %q, stderr %q", out.String(), errOut.String())
	}
}

func TestFeedDeliversThenEOF(t *testing.T) {
	r, err := Feed([]byte(`{"a":1}`))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := io.ReadAll(r)
	if err != nil || string(got) != `{"a":1}` {
		t.Errorf("read %q, %v", got, err)
	}
}
