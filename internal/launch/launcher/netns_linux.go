package launcher

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/kimi-run/kimi-run/sandbox"
)

// roleProbe is the launcher mode that only tries the namespaces (NetNSWorks).
const roleProbe = "probe"

// NetNSWorks starts kimi-run's image (exe) in a user and network namespace of its own and
// reports whether it could bring loopback up there: whether a confined arm can be
// isolated on this machine. Unprivileged user namespaces may be off (a sysctl, an LSM's
// policy), or give no capability over the network namespace they own.
func NetNSWorks(exe string) error {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	sys := &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	nsAttr(sys, syscall.CLONE_NEWNET)
	fd := null.Fd()
	pid, err := syscall.ForkExec(exe, []string{exe, ServeArg, roleProbe, "netns"}, &syscall.ProcAttr{Dir: "/", Env: []string{}, Files: []uintptr{fd, fd, fd}, Sys: sys})
	if err != nil {
		return fmt.Errorf("start a process in a network namespace of its own: %w", err)
	}
	var ws syscall.WaitStatus
	for {
		_, err = syscall.Wait4(pid, &ws, 0, nil)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		return err
	}
	if !ws.Exited() || ws.ExitStatus() != 0 {
		return errors.New("a process in a network namespace of its own could not bring loopback up")
	}
	return nil
}

// probe is the probe role: loopback up, or a failure status.
func probe() int {
	if err := loopbackUp(); err != nil {
		return 1
	}
	return 0
}

// loopbackUp brings the network namespace's loopback interface up.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("read loopback's flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP | unix.IFF_RUNNING)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bring loopback up: %w", err)
	}
	return nil
}

// isolateArm sets up an isolated confined arm before it confines itself: loopback up, and
// 127.0.0.1 at the proxy's port relayed to the proxy's socket.
func isolateArm(p sandbox.Policy) error {
	if err := loopbackUp(); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p.ProxyPort)))
	if err != nil {
		return fmt.Errorf("listen for the proxy in the network namespace: %w", err)
	}
	go relay(ln, p.ProxySocket)
	return nil
}

// relay hands each connection to the proxy's socket, for as long as the arm lives.
func relay(ln net.Listener, socket string) {
	for {
		c, err := ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return
		}
		go func() {
			defer c.Close()
			up, err := net.Dial("unix", socket)
			if err != nil {
				return
			}
			defer up.Close()
			done := make(chan struct{})
			go func() {
				io.Copy(up, c)
				up.(*net.UnixConn).CloseWrite()
				close(done)
			}()
			io.Copy(c, up)
			c.(*net.TCPConn).CloseWrite()
			<-done
		}()
	}
}

// dropAmbient clears the calling thread's ambient capabilities, so that the children it
// starts keep none (the forks happen on it).
func dropAmbient() {
	_ = unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
}
