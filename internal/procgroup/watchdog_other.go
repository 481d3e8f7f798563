//go:build !linux

package procgroup

import "syscall"

// supported is false: the watchdog reads /proc, which only Linux has in this form.
const supported = false

func watchdogAttr() *syscall.SysProcAttr { return nil }
func ignoreSignals()                     {}
func killGroup(int)                      {}
func startTime(int) (uint64, bool)       { return 0, false }
