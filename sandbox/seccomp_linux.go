//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// The seccomp filter closes what Landlock leaves open. Landlock judges file writes by path
// and TCP by port; it does not see sockets of other kinds (UDP before ABI 10, raw and
// packet sockets, TCP Fast Open's connect-in-sendto) nor extended attributes. So beside
// it each sandboxed command gets a small syscall filter:
//   - with the network cut, socket() works for AF_UNIX only (local IPC keeps working), and
//     io_uring cannot be set up, since its operations would bypass the filter;
//   - with the file system restricted, extended attributes cannot be set or removed, on
//     any file (the filter cannot see paths), which programs read as "not supported".
// The layout follows the usual one (Codex's Linux sandbox has the same shape): check the
// architecture, then the syscall number, then the arguments where it matters.

// Offsets in struct seccomp_data.
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16 // low 32 bits of the first argument on little-endian machines
)

// archRules are the syscall numbers of one architecture that the filter looks at; 0 means
// the architecture has no such call.
type archRules struct {
	audit uint32
	// x32 marks x86-64, whose x32 ABI shares the architecture value but sets this bit
	// in the number; such calls are all refused.
	x32 bool
	// socket is socket(2); socketcall is the multiplexer 32-bit x86 also has, refused as
	// a whole with the network off since its arguments are out of the filter's sight.
	socket, socketcall, ioUringSetup uint32
	xattr                            []uint32
	// sends are sendto, sendmsg and sendmmsg with the index of their flags argument:
	// with --allow-host's TCP sockets, MSG_FASTOPEN (a connect inside a send) is refused.
	sends []sendCall
}

// sendCall is a send syscall and the argument that holds its flags.
type sendCall struct {
	nr    uint32
	flags uint32
}

// argOff is the offset of the low 32 bits of argument i in struct seccomp_data, on the
// little-endian machines the filter exists for.
func argOff(i uint32) uint32 { return offArg0 + 8*i }

// errno returns the filter's answer that fails a call with e.
func errno(e unix.Errno) bpf.RetConstant {
	return bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(e)}
}

// filterFor builds the program for p, or nil when p needs none.
func filterFor(p Policy, arches []archRules) ([]bpf.Instruction, error) {
	if !p.NoNetwork && !p.RestrictsFiles() {
		return nil, nil
	}
	prog := []bpf.Instruction{bpf.LoadAbsolute{Off: offArch, Size: 4}}
	for _, a := range arches {
		block := archBlock(p, a)
		if len(block) > 255 {
			return nil, errors.New("seccomp filter too long")
		}
		prog = append(prog, bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: a.audit, SkipTrue: uint8(len(block))})
		prog = append(prog, block...)
	}
	// An architecture the filter does not know could name the same calls by other
	// numbers: a process that switches to one is killed rather than let through.
	return append(prog, bpf.RetConstant{Val: unix.SECCOMP_RET_KILL_PROCESS}), nil
}

// archBlock is the part of the program for one architecture, entered with the
// architecture in the accumulator; it always ends in a return.
func archBlock(p Policy, a archRules) []bpf.Instruction {
	b := []bpf.Instruction{bpf.LoadAbsolute{Off: offNr, Size: 4}}
	deny := func(nr uint32, e unix.Errno) {
		if nr != 0 {
			b = append(b, bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipFalse: 1}, errno(e))
		}
	}
	if a.x32 {
		b = append(b, bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: 0x40000000, SkipFalse: 1}, errno(unix.EPERM))
	}
	if p.RestrictsFiles() {
		for _, nr := range a.xattr {
			deny(nr, unix.EOPNOTSUPP)
		}
	}
	if !p.NoNetwork || a.socket == 0 {
		return append(b, bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW})
	}
	// EACCES is socket(2)'s own "permission to create a socket of this type is denied",
	// and reads as Landlock's refusals do: "Permission denied".
	deny(a.ioUringSetup, unix.EPERM)
	deny(a.socketcall, unix.EACCES)
	if p.Proxy() {
		return append(b, proxyBlock(a)...)
	}
	return append(b,
		bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: a.socket, SkipTrue: 3},
		bpf.LoadAbsolute{Off: offArg0, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_UNIX, SkipTrue: 1},
		errno(unix.EACCES),
		bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW},
	)
}

// proxyBlock ends an architecture's block for --allow-host: a command may make an AF_UNIX
// socket, or a TCP one (AF_INET or AF_INET6, SOCK_STREAM, protocol 0 or TCP: not MPTCP, not
// UDP, not raw), which Landlock lets connect to the proxy's port only; and no send may
// carry MSG_FASTOPEN, whose connect happens inside the send.
func proxyBlock(a archRules) []bpf.Instruction {
	var b []bpf.Instruction
	for _, s := range a.sends {
		b = append(b,
			bpf.LoadAbsolute{Off: offNr, Size: 4},
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: s.nr, SkipFalse: 3},
			bpf.LoadAbsolute{Off: argOff(s.flags), Size: 4},
			bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: unix.MSG_FASTOPEN, SkipFalse: 1},
			errno(unix.EPERM),
		)
	}
	// The jumps count the instructions they pass over; the comments number them.
	return append(b,
		bpf.LoadAbsolute{Off: offNr, Size: 4},                                  // 0
		bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: a.socket, SkipTrue: 11},        // 1: not socket(): 13
		bpf.LoadAbsolute{Off: argOff(0), Size: 4},                              // 2: domain
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_UNIX, SkipTrue: 9},        // 3: 13
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_INET, SkipTrue: 1},        // 4: 6
		bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: unix.AF_INET6, SkipTrue: 6},    // 5: 12
		bpf.LoadAbsolute{Off: argOff(1), Size: 4},                              // 6: type
		bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: 0xf},                          // 7: less SOCK_NONBLOCK, SOCK_CLOEXEC
		bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: unix.SOCK_STREAM, SkipTrue: 3}, // 8: 12
		bpf.LoadAbsolute{Off: argOff(2), Size: 4},                              // 9: protocol
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0, SkipTrue: 2},                   // 10: 13
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.IPPROTO_TCP, SkipTrue: 1},    // 11: 13
		errno(unix.EACCES),                           // 12
		bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW}, // 13
	)
}

// archSupport fails when p needs the filter and this architecture has none.
func archSupport(p Policy) error {
	if p.NoNetwork && len(arches) == 0 {
		return fmt.Errorf("%w: cutting the network needs a seccomp filter, which kimi-run has for amd64 and arm64 only", ErrUnsupported)
	}
	return nil
}

// installFilter loads p's filter into every thread of the process (the command is started
// from whichever thread runs the exec). It needs no_new_privs, which Landlock has set.
func installFilter(p Policy) error {
	if len(arches) == 0 {
		return archSupport(p)
	}
	insns, err := filterFor(p, arches)
	if err != nil || insns == nil {
		return err
	}
	raw, err := bpf.Assemble(insns)
	if err != nil {
		return fmt.Errorf("assemble seccomp filter: %w", err)
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	if _, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&prog))); e != 0 {
		return fmt.Errorf("install seccomp filter: %w", e)
	}
	return nil
}
