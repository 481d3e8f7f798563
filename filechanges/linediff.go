package filechanges

import (
	"bytes"
	"hash/maphash"
)

// maxEditDistance bounds the work of lineCounts' exact diff: past this many added plus
// removed lines, the counts come from comparing the files' lines as multisets, which is
// exact unless lines also moved.
const maxEditDistance = 4096

// lineCounts returns how many lines a minimal edit from old to new adds and removes, as a
// unified diff counts them (git's --numstat, for the common case).
func lineCounts(old, new []byte) (added, removed int) {
	a, b := splitLines(old), splitLines(new)
	// The common head and tail cost nothing and shrink the search.
	for len(a) > 0 && len(b) > 0 && a[0] == b[0] {
		a, b = a[1:], b[1:]
	}
	for len(a) > 0 && len(b) > 0 && a[len(a)-1] == b[len(b)-1] {
		a, b = a[:len(a)-1], b[:len(b)-1]
	}
	if len(a) == 0 || len(b) == 0 {
		return len(b), len(a)
	}
	d, ok := editDistance(a, b, maxEditDistance)
	if !ok {
		return multisetCounts(a, b)
	}
	// d = added + removed, and added - removed = len(b) - len(a).
	added = (d + len(b) - len(a)) / 2
	return added, d - added
}

// splitLines hashes each line of s, its newline included, so that a last line that lost or
// gained its newline counts as changed, as diff counts it. Lines are compared by hash: a collision of 64-bit hashes
// between two different lines of the same change is not a concern for a count.
func splitLines(s []byte) []uint64 {
	seed := lineSeed
	var out []uint64
	for len(s) > 0 {
		i := bytes.IndexByte(s, '\n')
		line := s
		if i >= 0 {
			line, s = s[:i+1], s[i+1:]
		} else {
			s = nil
		}
		out = append(out, maphash.Bytes(seed, line))
	}
	return out
}

var lineSeed = maphash.MakeSeed()

// editDistance is the length of the shortest edit script (insertions and deletions) from a
// to b, by Myers' O(ND) algorithm; ok is false when it is more than max.
func editDistance(a, b []uint64, max int) (d int, ok bool) {
	n, m := len(a), len(b)
	offset := max + 1
	v := make([]int, 2*max+3)
	for d = 0; d <= max; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[offset+k-1] < v[offset+k+1]) {
				x = v[offset+k+1] // down: an insertion
			} else {
				x = v[offset+k-1] + 1 // right: a deletion
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[offset+k] = x
			if x >= n && y >= m {
				return d, true
			}
		}
	}
	return 0, false
}

// multisetCounts counts the lines of b not matched by an equal line of a (added) and the
// other way round (removed).
func multisetCounts(a, b []uint64) (added, removed int) {
	count := make(map[uint64]int, len(a))
	for _, h := range a {
		count[h]++
	}
	for _, h := range b {
		if count[h] > 0 {
			count[h]--
		} else {
			added++
		}
	}
	for _, c := range count {
		removed += c
	}
	return added, removed
}
