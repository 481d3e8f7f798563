//go:build linux

package sandbox

import "golang.org/x/sys/unix"

// arches are the architectures a process on this machine can make syscalls in: x86-64
// (with x32) and 32-bit x86. The numbers are the kernel's, fixed for good.
var arches = []archRules{
	{audit: unix.AUDIT_ARCH_X86_64, x32: true, socket: 41, ioUringSetup: 425,
		xattr: []uint32{188, 189, 190, 197, 198, 199, 463, 466},
		sends: []sendCall{{nr: 44, flags: 3}, {nr: 46, flags: 2}, {nr: 307, flags: 3}}},
	{audit: unix.AUDIT_ARCH_I386, socket: 359, socketcall: 102, ioUringSetup: 425,
		xattr: []uint32{226, 227, 228, 235, 236, 237, 463, 466},
		sends: []sendCall{{nr: 369, flags: 3}, {nr: 370, flags: 2}, {nr: 345, flags: 3}}},
}
