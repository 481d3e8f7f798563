package launcher

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// message is every message between kimi-run and a launcher process, one per datagram of a
// SOCK_SEQPACKET socket pair; descriptors travel beside it (SCM_RIGHTS).
type message struct {
	Op string `json:"op"`
	// ID pairs a request with its answer.
	ID uint64 `json:"id,omitempty"`

	// start: the program, its argument list, environment and directory; descriptors 0-2
	// travel with it. keep: what it leaves may outlive the run.
	Path string   `json:"path,omitempty"`
	Argv []string `json:"argv,omitempty"`
	Env  []string `json:"env,omitempty"`
	Dir  string   `json:"dir,omitempty"`
	Keep bool     `json:"keep,omitempty"`
	// Survive: the child, and its tree, outlive the run (Spec.Survive); for box, an arm
	// whose children all do.
	Survive bool `json:"survive,omitempty"`

	// box: the policy of the confined arm; its socket travels with it.
	Policy string `json:"policy,omitempty"`

	// started, exit: the child. exit: its wait status and CPU time in nanoseconds.
	Pid    int   `json:"pid,omitempty"`
	Status int   `json:"status,omitempty"`
	User   int64 `json:"user,omitempty"`
	System int64 `json:"system,omitempty"`

	// started, fail: why it did not start; errno when a system call said so.
	Err   string `json:"err,omitempty"`
	Errno int    `json:"errno,omitempty"`

	// started (box), note: a part of the sandbox the machine refused, as a warning.
	Note string `json:"note,omitempty"`

	// Body: the message itself is in the last descriptor (a memfd), too large for a
	// datagram.
	Body bool `json:"body,omitempty"`
}

// The operations.
const (
	opStart   = "start"   // kimi-run → launcher: start a child
	opBox     = "box"     // kimi-run → launcher: start the confined arm
	opEnd     = "end"     // kimi-run → launcher: the run ends the orderly way
	opStarted = "started" // launcher → kimi-run: the answer to start and box
	opExit    = "exit"    // launcher → kimi-run: a child ended
	opEnded   = "ended"   // launcher → kimi-run: the answer to end
	opFail    = "fail"    // confined arm → kimi-run: it could not confine itself
	opNote    = "note"    // confined arm → kimi-run: a part of the sandbox it could not have
)

// maxDatagram is the largest message sent inline; a larger one (a huge environment) goes
// in a memfd. Unix datagrams are bounded by the socket buffer, about 200 KiB by default.
const maxDatagram = 96 << 10

// socketPair returns the two ends of a new SOCK_SEQPACKET pair, both close-on-exec.
func socketPair() (*os.File, *os.File, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("socketpair: %w", err)
	}
	return os.NewFile(uintptr(fds[0]), "launcher"), os.NewFile(uintptr(fds[1]), "launcher"), nil
}

// connOf makes a connection of one end of a pair; f is closed.
func connOf(f *os.File) (*net.UnixConn, error) {
	c, err := net.FileConn(f)
	f.Close()
	if err != nil {
		return nil, err
	}
	uc, ok := c.(*net.UnixConn)
	if !ok {
		c.Close()
		return nil, errors.New("not a unix socket")
	}
	return uc, nil
}

// send writes m with files beside it.
func send(c *net.UnixConn, m message, files ...*os.File) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	var body *os.File
	if len(b) > maxDatagram {
		if body, err = memfd(b); err != nil {
			return err
		}
		defer body.Close()
		files = append(files, body)
		b = []byte(`{"op":"` + m.Op + `","body":true}`)
	}
	var oob []byte
	if len(files) > 0 {
		fds := make([]int, len(files))
		for i, f := range files {
			fds[i] = int(f.Fd())
		}
		oob = syscall.UnixRights(fds...)
	}
	_, _, err = c.WriteMsgUnix(b, oob, nil)
	return err
}

// receiver reads messages from one connection, reusing its buffers.
type receiver struct {
	c        *net.UnixConn
	buf, oob []byte
	// small: only datagrams, no descriptors. kimi-run reads its launchers so: they answer
	// in a few bytes, and a confined arm's socket may be in a confined command's hands
	// (root may take it with pidfd_getfd: they share a domain), which must not make
	// kimi-run read a body of its choosing (seen: /dev/zero, 2 GiB read into kimi-run).
	small bool
}

func newReceiver(c *net.UnixConn) *receiver {
	return &receiver{c: c, buf: make([]byte, maxDatagram+1024), oob: make([]byte, syscall.CmsgSpace(16*4))}
}

// next reads the next message and the descriptors that came with it; io.EOF when the
// other end is gone.
func (r *receiver) next() (message, []*os.File, error) {
	var m message
	n, oobn, flags, _, err := r.c.ReadMsgUnix(r.buf, r.oob)
	if err != nil {
		return m, nil, err
	}
	files, ferr := filesOf(r.oob[:oobn])
	if n == 0 && oobn == 0 {
		return m, nil, io.EOF
	}
	if ferr != nil || flags&(syscall.MSG_TRUNC|syscall.MSG_CTRUNC) != 0 || (r.small && len(files) > 0) {
		closeFiles(files)
		return m, nil, fmt.Errorf("bad message (flags %#x, %d descriptors): %v", flags, len(files), ferr)
	}
	if err := json.Unmarshal(r.buf[:n], &m); err != nil {
		closeFiles(files)
		return m, nil, err
	}
	if m.Body {
		if len(files) == 0 {
			return m, nil, errors.New("a message body without its descriptor")
		}
		body := files[len(files)-1]
		files = files[:len(files)-1]
		m = message{}
		b, err := io.ReadAll(io.NewSectionReader(body, 0, 1<<30))
		body.Close()
		if err == nil {
			err = json.Unmarshal(b, &m)
		}
		if err != nil {
			closeFiles(files)
			return m, nil, err
		}
	}
	return m, files, nil
}

// filesOf takes the descriptors out of a control message.
func filesOf(oob []byte) ([]*os.File, error) {
	if len(oob) == 0 {
		return nil, nil
	}
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, err
	}
	var files []*os.File
	for i := range msgs {
		fds, err := syscall.ParseUnixRights(&msgs[i])
		if err != nil {
			closeFiles(files)
			return nil, err
		}
		for _, fd := range fds {
			syscall.CloseOnExec(fd)
			files = append(files, os.NewFile(uintptr(fd), "passed"))
		}
	}
	return files, nil
}

func closeFiles(fs []*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// memfd returns an anonymous file holding b.
func memfd(b []byte) (*os.File, error) {
	fd, err := unix.MemfdCreate("kimi-run-message", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("memfd_create: %w", err)
	}
	f := os.NewFile(uintptr(fd), "message")
	if _, err := f.Write(b); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
