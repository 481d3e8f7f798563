//go:build !linux

package launcher

import "errors"

// NetNSWorks reports that a confined arm cannot be isolated: network namespaces are
// Linux's.
func NetNSWorks(string) error { return errors.New("network namespaces exist on Linux only") }
