//go:build linux

// Command escape-probe makes one of the escape attempts of issue 17's adversarial pass at
// the sandbox, so the end-to-end escape suite needs neither Python nor root tools. It exits
// 0 when the attempt worked, 3 when the system refused it (saying why on stderr), 2 on bad
// usage.
//
//	escape-probe tfo 127.0.0.1:PORT      TCP Fast Open: connect and send in one sendto
//	escape-probe udp 127.0.0.1:PORT      one UDP datagram
//	escape-probe raw                     a raw ICMP socket (root only)
//	escape-probe packet                  an AF_PACKET socket (root only)
//	escape-probe iouring                 an io_uring instance
//	escape-probe setxattr PATH           set user.kimi on PATH
//	escape-probe swap A B                swap A and B (renameat2 RENAME_EXCHANGE) until killed
//	escape-probe tcp HOST:PORT           a TCP connection, straight (no proxy)
//	escape-probe proxied URL             GET URL through $HTTPS_PROXY (as curl does), printing the status and body
//	escape-probe via-socket SOCKET URL   GET URL through the proxy listening on the Unix socket SOCKET
package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch arg := os.Args[1:]; arg[0] {
	case "tfo":
		err = send(unix.SOCK_STREAM, unix.MSG_FASTOPEN, arg)
	case "udp":
		err = send(unix.SOCK_DGRAM, 0, arg)
	case "raw":
		err = open(unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_ICMP)
	case "packet":
		err = open(unix.AF_PACKET, unix.SOCK_RAW, 0x0300) // htons(ETH_P_ALL)
	case "iouring":
		var params [120]byte // struct io_uring_params
		fd, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params[0])), 0)
		if e != 0 {
			err = e
		} else {
			unix.Close(int(fd))
		}
	case "setxattr":
		if len(arg) != 2 {
			usage()
		}
		err = unix.Setxattr(arg[1], "user.kimi", []byte("escaped"), 0)
	case "swap":
		if len(arg) != 3 {
			usage()
		}
		for n := 0; ; n++ {
			if err = unix.Renameat2(unix.AT_FDCWD, arg[1], unix.AT_FDCWD, arg[2], unix.RENAME_EXCHANGE); err != nil {
				break
			}
			if n == 0 {
				fmt.Println("swapping")
			}
		}
	case "tcp":
		if len(arg) != 2 {
			usage()
		}
		var c net.Conn
		if c, err = net.DialTimeout("tcp", arg[1], 10*time.Second); err == nil {
			c.Close()
		}
	case "proxied":
		if len(arg) != 2 {
			usage()
		}
		err = proxied(arg[1])
	case "via-socket":
		if len(arg) != 3 {
			usage()
		}
		err = viaSocket(arg[1], arg[2])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "escape-probe %s: %v\n", os.Args[1], err)
		os.Exit(3)
	}
	fmt.Printf("escape-probe %s: done\n", os.Args[1])
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: escape-probe tfo|udp|tcp ADDR | raw | packet | iouring | setxattr PATH | swap A B | proxied URL | via-socket SOCKET URL")
	os.Exit(2)
}

// send opens an IPv4 socket of type typ and sends one message to the address in arg[1].
func send(typ, flags int, arg []string) error {
	if len(arg) != 2 {
		usage()
	}
	ap, err := netip.ParseAddrPort(arg[1])
	if err != nil || !ap.Addr().Is4() {
		usage()
	}
	fd, err := unix.Socket(unix.AF_INET, typ, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return unix.Sendto(fd, []byte("kimi"), flags, &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()})
}

// proxied gets u through the proxy the environment names, even for a loopback host (which
// Go's own proxy rules would send straight), and fails unless the answer is 200.
func proxied(u string) error {
	pu, err := url.Parse(os.Getenv("HTTPS_PROXY"))
	if err != nil || pu.Host == "" {
		return fmt.Errorf("no HTTPS_PROXY in the environment")
	}
	return get(&http.Transport{Proxy: http.ProxyURL(pu)}, u)
}

// viaSocket gets u through the proxy on the Unix socket sock, with no credential.
func viaSocket(sock, u string) error {
	return get(&http.Transport{
		Proxy: http.ProxyURL(&url.URL{Scheme: "http", Host: "socket"}),
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", sock)
		},
	}, u)
}

// get gets u with t and fails unless the answer is 200.
func get(t *http.Transport, u string) error {
	c := &http.Client{Timeout: 30 * time.Second, Transport: t}
	resp, err := c.Get(u)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	fmt.Printf("%d %s\n", resp.StatusCode, b)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d: %s", resp.StatusCode, b)
	}
	return nil
}

// open opens a socket and closes it again: having it is the escape.
func open(domain, typ, proto int) error {
	fd, err := unix.Socket(domain, typ, proto)
	if err != nil {
		return err
	}
	return unix.Close(fd)
}
