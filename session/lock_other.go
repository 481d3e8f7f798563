//go:build !unix && !windows

package session

import "os"

// tryLock is a no-op where the platform has no file locks kimi-run knows (plan9, wasm).
func tryLock(*os.File, bool) error { return nil }

func unlock(*os.File) error { return nil }
