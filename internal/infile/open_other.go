//go:build !unix

package infile

import "os"

// openNonblocking opens path for reading; outside Unix there are no FIFOs in the file
// system to wait on.
func openNonblocking(path string) (*os.File, error) { return os.Open(path) }

func release(string) {}
