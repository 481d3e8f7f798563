//go:build linux

package sandbox

import "golang.org/x/sys/unix"

// arches are the architectures a process on this machine can make syscalls in: arm64
// only (a 32-bit ARM process is killed by the filter). The numbers are the kernel's.
var arches = []archRules{
	{audit: unix.AUDIT_ARCH_AARCH64, socket: 198, ioUringSetup: 425,
		xattr: []uint32{5, 6, 7, 14, 15, 16, 463, 466},
		sends: []sendCall{{nr: 206, flags: 3}, {nr: 211, flags: 2}, {nr: 269, flags: 3}}},
}
