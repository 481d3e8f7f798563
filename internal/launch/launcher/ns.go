package launcher

import (
	"fmt"
	"strings"
)

// The parts of the commands' namespaces (Policy.Namespaces) a run may leave out.
const (
	NSUser     = "userns"   // the user and mount namespaces, and with them every part
	NSPID      = "pid"      // a process namespace with a /proc of its own
	NSReadOnly = "readonly" // every mount read-only but the writable dirs
	NSTmp      = "tmp"      // a /tmp of the run's own
)

// ParseNS reads KIMI_RUN_NS: "" asks for every part of the namespaces, "off" for none (on
// false), and a comma-separated list of parts (NSUser, NSPID, NSReadOnly, NSTmp) leaves
// those out.
func ParseNS(v string) (on bool, omit []string, err error) {
	switch v {
	case "":
		return true, nil, nil
	case "off":
		return false, nil, nil
	}
	for _, part := range strings.Split(v, ",") {
		switch part = strings.TrimSpace(part); part {
		case NSUser, NSPID, NSReadOnly, NSTmp:
			omit = append(omit, part)
		default:
			return false, nil, fmt.Errorf("%q is no part of the namespaces: want off, or parts to leave out among %s, %s, %s, %s", part, NSUser, NSPID, NSReadOnly, NSTmp)
		}
	}
	return true, omit, nil
}

// NoNamespacesNote is the warning of a sandboxed run whose commands get no namespaces of
// their own, and why.
func NoNamespacesNote(why string) string {
	return fmt.Sprintf("--sandbox: commands run without namespaces of their own here (%s): they see every process of the machine, and chmod, chown and utimes outside the writable dirs are not refused; see docs/sandbox.md", why)
}
