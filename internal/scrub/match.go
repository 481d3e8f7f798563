package scrub

// The matcher finds every form in one pass over the text, whatever the number of forms
// (Wu-Manber's idea): every form is at least MinSecret bytes, so each occurrence covers one
// of the positions 0, step, 2*step… with one of its first step 4-byte windows. The text is
// read at those positions only: a hash of the 4 bytes there and a bit test, and only where
// the bit is set a look at the forms that hold those 4 bytes near their start. A text of n
// bytes costs about n/step steps.

const (
	// tableBits is the size of the filter: 2^16 bits, 8 KiB.
	tableBits = 16
	// step is how far apart the positions read are.
	step = MinSecret - 4 + 1
)

// entry is a form that holds the 4 bytes at offset off.
type entry struct{ form, off int }

type matcher struct {
	bits  [1 << tableBits / 64]uint64
	heads map[uint32][]entry
	// first holds the first byte of every form.
	first [256]bool
}

func head[T string | []byte](p T, i int) uint32 {
	return uint32(p[i]) | uint32(p[i+1])<<8 | uint32(p[i+2])<<16 | uint32(p[i+3])<<24
}

func slot(h uint32) uint32 { return (h * 0x9E3779B1) >> (32 - tableBits) }

// build indexes forms (each at least MinSecret bytes).
func (m *matcher) build(forms [][]byte) {
	*m = matcher{heads: map[uint32][]entry{}}
	for i, f := range forms {
		m.first[f[0]] = true
		for off := range step {
			h := head(f, off)
			m.heads[h] = append(m.heads[h], entry{i, off})
			s := slot(h)
			m.bits[s/64] |= 1 << (s % 64)
		}
	}
}

// replace returns p with every form replaced by Redacted, leftmost first and the longest
// at a position, and whether it found any.
func replace[T string | []byte](m *matcher, forms [][]byte, p T) ([]byte, bool) {
	var out []byte
	last := 0
	for i := 0; i+4 <= len(p); i += step {
		h := head(p, i)
		if s := slot(h); m.bits[s/64]&(1<<(s%64)) == 0 {
			continue
		}
		start, n := -1, 0
		for _, e := range m.heads[h] {
			f, at := forms[e.form], i-e.off
			if at < last || at+len(f) > len(p) || start >= 0 && (at > start || at == start && len(f) <= n) {
				continue
			}
			if string(p[at:at+len(f)]) == string(f) {
				start, n = at, len(f)
			}
		}
		if start < 0 {
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(p))
		}
		out = append(append(out, p[last:start]...), Redacted...)
		last = start + n
		// The next occurrence begins at last or later: it covers a position from there on.
		i = (last+step-1)/step*step - step
	}
	if out == nil {
		return nil, false
	}
	return append(out, p[last:]...), true
}
