//go:build linux && !amd64 && !arm64

package sandbox

// arches is empty: kimi-run has no syscall table for this architecture, so it cannot cut
// the network (the run refuses --sandbox-network off) and sets no filter otherwise.
var arches []archRules
