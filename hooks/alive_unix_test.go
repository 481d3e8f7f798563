//go:build unix

package hooks

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// alive reports whether the process pid runs (a zombie does not).
func alive(pid string) bool {
	n, err := strconv.Atoi(pid)
	if err != nil || syscall.Kill(n, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return true // no /proc: kill found it
	}
	i := strings.LastIndexByte(string(stat), ')')
	f := strings.Fields(string(stat[i+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}
