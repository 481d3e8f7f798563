//go:build !linux

package procself

// Harden does nothing here: there is no /proc to hide anything from.
func Harden(args []string) (*Self, []string) { return nil, args }

func (p *Self) Hide([][]byte, func(string) bool) error { return nil }
