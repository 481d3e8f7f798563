//go:build !unix

package procgroup

import "syscall"

// Attr returns nil: sessions and process groups are a Unix notion.
func Attr() *syscall.SysProcAttr { return nil }
