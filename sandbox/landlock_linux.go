//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
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

// restrict applies p to the calling thread (and the process's other threads). It asks for
// exactly what the kernel supports, never in best-effort mode: a right it cannot restrict is
// an error, not a silently weaker sandbox.
func restrict(p Policy) error {
	if err := check(p); err != nil {
		return err
	}
	abi := ABI()
	base := preset(abi)
	cfg := landlock.Config{}
	var rules []landlock.Rule
	if p.restrictsFiles() {
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
		// UDP bind and send too (DNS included).
		cfg.HandledAccessNet = base.HandledAccessNet
		if abi >= 6 {
			cfg.Scoped |= landlock.ScopedSet(ll.ScopeAbstractUnixSocket)
		}
	}
	// Signals are not scoped: every Shell call gets a Landlock domain of its own, so a
	// scope would stop one call from stopping the server an earlier call started.
	if err := cfg.Restrict(rules...); err != nil {
		return err
	}
	return installFilter(p)
}

// Helper is kimi-run's helper mode: args are the policy (JSON) and the program to run with
// its arguments. It applies the policy and replaces the process with the program; it
// returns (with exit status 126, after a line on stderr) only if either step fails, so a
// command never runs unconfined.
func Helper(args []string, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintf(stderr, "kimi-run sandbox: %v\n", err)
		return 126
	}
	if len(args) < 2 {
		return fail(errors.New("usage: kimi-run " + HelperArg + " POLICY PROGRAM [ARGS...]"))
	}
	p, err := decode(args[0])
	if err != nil {
		return fail(err)
	}
	prog, err := exec.LookPath(args[1])
	if err != nil {
		return fail(err)
	}
	// exec replaces the process from this thread; keep the Go runtime from moving us off it
	// between the restriction and the exec.
	runtime.LockOSThread()
	// kimi-run starts the helper with a parent-death signal, but the kernel keeps it per
	// thread, and this thread may not be the one it was set on: set it here too, so the
	// command still dies with kimi-run after the exec.
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0, 0, 0); err != nil {
		return fail(fmt.Errorf("set the parent-death signal: %w", err))
	}
	if err := restrict(p); err != nil {
		return fail(fmt.Errorf("applying the sandbox: %w", err))
	}
	err = syscall.Exec(prog, args[1:], p.commandEnv(os.Environ()))
	return fail(fmt.Errorf("exec %s: %w", args[1], err))
}
