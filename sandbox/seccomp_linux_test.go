//go:build linux

package sandbox

import (
	"encoding/binary"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// seccompData lays out struct seccomp_data. The kernel loads its words in the machine's
// order; x/net/bpf's interpreter loads packet bytes in network order, so the words are
// written big-endian here to reach the filter as the kernel would hand them.
func seccompData(arch, nr, arg0 uint32) []byte {
	b := make([]byte, 64)
	binary.BigEndian.PutUint32(b[offNr:], nr)
	binary.BigEndian.PutUint32(b[offArch:], arch)
	binary.BigEndian.PutUint32(b[offArg0:], arg0)
	return b
}

// The filter's answers, run in x/net/bpf's interpreter: the decisions the kernel would
// take, for the architectures' real syscall numbers.
func TestSeccompFilter(t *testing.T) {
	x64 := archRules{audit: unix.AUDIT_ARCH_X86_64, x32: true, socket: 41, ioUringSetup: 425, xattr: []uint32{188, 190}}
	i386 := archRules{audit: unix.AUDIT_ARCH_I386, socket: 359, socketcall: 102, ioUringSetup: 425, xattr: []uint32{226}}
	allow := uint32(unix.SECCOMP_RET_ALLOW)
	eacces := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES))
	eperm := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	enotsup := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EOPNOTSUPP))
	kill := uint32(unix.SECCOMP_RET_KILL_PROCESS)
	noNet := Policy{Mode: Off, NoNetwork: true}
	ro := Policy{Mode: ReadOnly}
	both := Policy{Mode: WorkspaceWrite, NoNetwork: true}
	tests := []struct {
		name           string
		p              Policy
		arch, nr, arg0 uint32
		want           uint32
	}{
		{"unix socket", noNet, x64.audit, 41, unix.AF_UNIX, allow},
		{"inet socket", noNet, x64.audit, 41, unix.AF_INET, eacces},
		{"inet6 socket", noNet, x64.audit, 41, unix.AF_INET6, eacces},
		{"packet socket", noNet, x64.audit, 41, unix.AF_PACKET, eacces},
		{"netlink socket", noNet, x64.audit, 41, unix.AF_NETLINK, eacces},
		{"io_uring", noNet, x64.audit, 425, 0, eperm},
		{"x32 call", noNet, x64.audit, 0x40000000 + 41, unix.AF_UNIX, eperm},
		{"read", noNet, x64.audit, 0, 0, allow},
		{"xattr with the network cut only", noNet, x64.audit, 188, 0, allow},
		{"i386 socketcall", noNet, i386.audit, 102, 1, eacces},
		{"i386 inet socket", noNet, i386.audit, 359, unix.AF_INET, eacces},
		{"i386 unix socket", noNet, i386.audit, 359, unix.AF_UNIX, allow},
		{"unknown arch", noNet, unix.AUDIT_ARCH_AARCH64, 198, unix.AF_INET, kill},
		{"setxattr read-only", ro, x64.audit, 188, 0, enotsup},
		{"fsetxattr read-only", ro, x64.audit, 190, 0, enotsup},
		{"i386 setxattr read-only", ro, i386.audit, 226, 0, enotsup},
		{"inet socket with files only", ro, x64.audit, 41, unix.AF_INET, allow},
		{"both: socket", both, x64.audit, 41, unix.AF_INET, eacces},
		{"both: xattr", both, x64.audit, 188, 0, enotsup},
		{"both: open", both, x64.audit, 257, 0, allow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			insns, err := filterFor(tt.p, []archRules{x64, i386})
			if err != nil {
				t.Fatal(err)
			}
			vm, err := bpf.NewVM(insns)
			if err != nil {
				t.Fatal(err)
			}
			got, err := vm.Run(seccompData(tt.arch, tt.nr, tt.arg0))
			if err != nil {
				t.Fatal(err)
			}
			if uint32(got) != tt.want {
				t.Errorf("filter answers %#x, want %#x", uint32(got), tt.want)
			}
		})
	}
	if insns, _ := filterFor(Policy{Mode: Off}, []archRules{x64}); insns != nil {
		t.Errorf("a policy that restricts nothing got a filter")
	}
}

// TestSeccompProxyFilter: under --allow-host (issue 32 #8) a command may make TCP sockets,
// IPv4 or IPv6, and nothing else of the network kind (UDP, raw, packet, MPTCP), and may
// not connect inside a send (TCP Fast Open), which Landlock's connect rule would not see.
func TestSeccompProxyFilter(t *testing.T) {
	x64 := archRules{audit: unix.AUDIT_ARCH_X86_64, x32: true, socket: 41, ioUringSetup: 425,
		sends: []sendCall{{nr: 44, flags: 3}, {nr: 46, flags: 2}, {nr: 307, flags: 3}}}
	i386 := archRules{audit: unix.AUDIT_ARCH_I386, socket: 359, socketcall: 102, ioUringSetup: 425,
		sends: []sendCall{{nr: 369, flags: 3}, {nr: 370, flags: 2}, {nr: 345, flags: 3}}}
	allow := uint32(unix.SECCOMP_RET_ALLOW)
	eacces := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES))
	eperm := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	p := Policy{Mode: WorkspaceWrite, NoNetwork: true, ProxyPort: 3128}
	const mptcp = 262
	tests := []struct {
		name     string
		arch, nr uint32
		args     [4]uint32
		want     uint32
	}{
		{"tcp", x64.audit, 41, [4]uint32{unix.AF_INET, unix.SOCK_STREAM, 0}, allow},
		{"tcp, protocol named", x64.audit, 41, [4]uint32{unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_TCP}, allow},
		{"tcp6, non-blocking, close-on-exec", x64.audit, 41, [4]uint32{unix.AF_INET6, unix.SOCK_STREAM | unix.SOCK_NONBLOCK | unix.SOCK_CLOEXEC, 0}, allow},
		{"unix", x64.audit, 41, [4]uint32{unix.AF_UNIX, unix.SOCK_DGRAM, 0}, allow},
		{"udp", x64.audit, 41, [4]uint32{unix.AF_INET, unix.SOCK_DGRAM, 0}, eacces},
		{"udp6", x64.audit, 41, [4]uint32{unix.AF_INET6, unix.SOCK_DGRAM, unix.IPPROTO_UDP}, eacces},
		{"raw", x64.audit, 41, [4]uint32{unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_ICMP}, eacces},
		{"mptcp", x64.audit, 41, [4]uint32{unix.AF_INET, unix.SOCK_STREAM, mptcp}, eacces},
		{"sctp stream", x64.audit, 41, [4]uint32{unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_SCTP}, eacces},
		{"packet", x64.audit, 41, [4]uint32{unix.AF_PACKET, unix.SOCK_RAW, 0}, eacces},
		{"netlink", x64.audit, 41, [4]uint32{unix.AF_NETLINK, unix.SOCK_RAW, 0}, eacces},
		{"sendto", x64.audit, 44, [4]uint32{3, 0, 10, unix.MSG_NOSIGNAL}, allow},
		{"sendto fast open", x64.audit, 44, [4]uint32{3, 0, 10, unix.MSG_FASTOPEN | unix.MSG_NOSIGNAL}, eperm},
		{"sendmsg fast open", x64.audit, 46, [4]uint32{3, 0, unix.MSG_FASTOPEN}, eperm},
		{"sendmsg", x64.audit, 46, [4]uint32{3, 0, 0}, allow},
		{"sendmmsg fast open", x64.audit, 307, [4]uint32{3, 0, 1, unix.MSG_FASTOPEN}, eperm},
		{"io_uring", x64.audit, 425, [4]uint32{}, eperm},
		{"i386 socketcall", i386.audit, 102, [4]uint32{1}, eacces},
		{"i386 tcp", i386.audit, 359, [4]uint32{unix.AF_INET, unix.SOCK_STREAM, 0}, allow},
		{"i386 udp", i386.audit, 359, [4]uint32{unix.AF_INET, unix.SOCK_DGRAM, 0}, eacces},
		{"i386 sendto fast open", i386.audit, 369, [4]uint32{3, 0, 10, unix.MSG_FASTOPEN}, eperm},
	}
	insns, err := filterFor(p, []archRules{x64, i386})
	if err != nil {
		t.Fatal(err)
	}
	vm, err := bpf.NewVM(insns)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := seccompData(tt.arch, tt.nr, tt.args[0])
			for i, a := range tt.args[1:] {
				binary.BigEndian.PutUint32(data[argOff(uint32(i+1)):], a)
			}
			got, err := vm.Run(data)
			if err != nil {
				t.Fatal(err)
			}
			if uint32(got) != tt.want {
				t.Errorf("filter answers %#x, want %#x", uint32(got), tt.want)
			}
		})
	}
}
