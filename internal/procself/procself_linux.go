package procself

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// Harden makes kimi-run's own process non-dumpable, after opening /proc/self/mem for
// Hide (which a non-dumpable process of another user than root cannot open), and
// returns args copied off the argument block. A process without /proc gets a nil handle.
func Harden(args []string) (*Self, []string) {
	mem, err := os.OpenFile("/proc/self/mem", os.O_RDWR, 0)
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	args = rehome(args)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, args // no /proc: nobody reads the blocks there either
	}
	return &Self{mem: mem, err: err}, args
}

// Hide overwrites each form of a secret, and the values of the variables vars picks, in
// the process's original argument and environment blocks, then lets go of /proc/self/mem.
func (p *Self) Hide(forms [][]byte, vars func(string) bool) error {
	if p == nil {
		return nil
	}
	if p.err != nil {
		return p.err
	}
	defer p.mem.Close()
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return err
	}
	// Fields 48-51 (arg_start, arg_end, env_start, env_end) follow the command name,
	// which is in parentheses and may hold anything: count from the last ')'.
	fields := bytes.Fields(stat[bytes.LastIndexByte(stat, ')')+1:])
	if len(fields) < 49 {
		return fmt.Errorf("/proc/self/stat has %d fields after the name", len(fields))
	}
	var at [4]int64
	for i := range at {
		if at[i], err = strconv.ParseInt(string(fields[45+i]), 10, 64); err != nil {
			return fmt.Errorf("/proc/self/stat: %w", err)
		}
	}
	for i, vars := range []func(string) bool{nil, vars} {
		start, end := at[2*i], at[2*i+1]
		if start <= 0 || end <= start || end-start > 1<<24 {
			continue
		}
		block := make([]byte, end-start)
		if _, err := p.mem.ReadAt(block, start); err != nil {
			return err
		}
		if maskBlock(block, forms, vars) {
			if _, err := p.mem.WriteAt(block, start); err != nil {
				return err
			}
		}
	}
	return nil
}
