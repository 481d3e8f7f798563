//go:build linux

package sandbox

import (
	"fmt"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// ABI returns the Landlock ABI version of the running kernel; 0 when it has none.
func ABI() int {
	v, err := ll.LandlockGetABIVersion()
	if err != nil || v < 0 {
		return 0
	}
	return v
}

func check(p Policy) error {
	abi := ABI()
	if abi < 1 {
		return fmt.Errorf("%w: this Linux kernel has no Landlock (it needs Linux 5.13 or later with landlock in the lsm= boot list)", ErrUnsupported)
	}
	if p.NoNetwork && abi < 4 {
		return fmt.Errorf("%w: cutting the network needs Landlock ABI 4 (Linux 6.7), and this kernel has ABI %d", ErrUnsupported, abi)
	}
	return archSupport(p)
}

// presets are go-landlock's configurations by ABI version; presets[v-1] is ABI v.
var presets = []landlock.Config{landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5, landlock.V6,
	landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}

// preset returns the configuration of the kernel's ABI, capped at the newest one used here.
func preset(abi int) landlock.Config {
	return presets[min(abi, len(presets))-1]
}

// Confine applies p to the calling process, every thread of it, for good: Landlock, with
// the signal scope, and the seccomp filter. It asks for exactly what the kernel supports,
// never in best-effort mode: a right it cannot restrict is an error, not a silently weaker
// sandbox. The launcher's confined arm calls it before it starts any child.
func Confine(p Policy) error {
	if err := check(p); err != nil {
		return err
	}
	abi := ABI()
	base := preset(abi)
	cfg := landlock.Config{}
	var rules []landlock.Rule
	if p.RestrictsFiles() {
		// Rights up to ABI 5 (truncate, refer, ioctl on devices). ABI 9's restriction of
		// Unix socket connects is left out: it would break connecting to local services
		// (databases, the Docker socket) that a build may need, and it is not a file write.
		cfg.HandledAccessFS = base.HandledAccessFS & landlock.V5.HandledAccessFS
		read := landlock.RODirs("/").WithIoctlDev()
		write := landlock.RWDirs(p.WritableRoots()...).WithIoctlDev()
		if abi >= 2 {
			// Moving and linking files between writable directories (mv a/x b/).
			write = write.WithRefer()
		}
		rules = append(rules, read, write, landlock.RWFiles(devices...).WithIoctlDev().IgnoreIfMissing())
	}
	if p.NoNetwork {
		// No port rules: every TCP bind and connect is refused, and from ABI 10 on every
		// UDP bind and send too (DNS included) — but for --allow-host's one port, that of
		// the run's proxy (or of the relay to it in the arm's network namespace).
		cfg.HandledAccessNet = base.HandledAccessNet
		if p.ProxyPort > 0 {
			rules = append(rules, landlock.ConnectTCP(uint16(p.ProxyPort)))
		}
	}
	if abi >= 6 {
		// Signals: a confined process can signal only processes of its own domain, which
		// all the run's confined children share (they come from one launcher), so a Shell
		// call can still stop a server an earlier one started; kimi-run, its launcher and
		// every other process are out of reach (kill -STOP, kill -9).
		cfg.Scoped |= landlock.ScopedSet(ll.ScopeSignal)
		if p.NoNetwork {
			cfg.Scoped |= landlock.ScopedSet(ll.ScopeAbstractUnixSocket)
		}
	}
	if err := cfg.Restrict(rules...); err != nil {
		return err
	}
	return installFilter(p)
}
