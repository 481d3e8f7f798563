package search

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// naiveGrep is the reference the block scanner is checked against: it tests every line
// on its own and applies context the way ripgrep does.
func naiveGrep(lines []string, re *regexp.Regexp, before, after int) []Line {
	var out []Line
	lastShown := 0 // number of the last line output
	owed := 0
	for i, l := range lines {
		num := i + 1
		if re.MatchString(l) {
			for b := max(lastShown+1, num-before); b < num; b++ {
				out = append(out, Line{Num: b, Text: lineText([]byte(lines[b-1]))})
			}
			out = append(out, Line{Num: num, Text: lineText([]byte(l)), Match: true})
			lastShown, owed = num, after
			continue
		}
		if owed > 0 {
			out = append(out, Line{Num: num, Text: lineText([]byte(l))})
			lastShown = num
			owed--
		}
	}
	return out
}

// scannerFile writes lines to a file that spans several read blocks, with a few lines
// longer than the first read so the buffer has to grow.
func scannerFile(t *testing.T, seed uint64) (string, []string) {
	rng := rand.New(rand.NewPCG(seed, 7))
	words := []string{"alpha", "beta", "gamma", "needle", "delta", "epsilon", "zeta"}
	var lines []string
	for i := range 30000 {
		n := rng.IntN(12)
		if i%9000 == 4500 {
			n = 30000 // about 180 KiB: longer than the first read
		}
		parts := make([]string, n)
		for j := range parts {
			parts[j] = words[rng.IntN(len(words))]
			if rng.IntN(40) != 0 && parts[j] == "needle" {
				parts[j] = "hay"
			}
		}
		if i%3001 == 1500 {
			parts = append(parts, "MARK")
		}
		lines = append(lines, strings.Join(parts, " "))
	}
	path := filepath.Join(t.TempDir(), "big.txt")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, lines
}

func TestGrepScannerMatchesLineByLineReference(t *testing.T) {
	path, lines := scannerFile(t, 1)
	cases := []struct {
		pattern       string
		before, after int
	}{
		{`needle\s+(beta|zeta)`, 0, 0}, {`needle\s+(beta|zeta)`, 1, 0}, {`needle\s+(beta|zeta)`, 0, 2},
		{`needle\s+(beta|zeta)`, 3, 3}, {`needle\s+(beta|zeta)`, 6, 1},
		// Rare matches with wide context: context crosses blocks that have no match.
		{`MARK`, 0, 0}, {`MARK`, 200, 200}, {`MARK`, 700, 0}, {`MARK`, 0, 900},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s_B%d_A%d", c.pattern, c.before, c.after), func(t *testing.T) {
			g, err := NewGrep(Query{Pattern: c.pattern, Mode: Content, Before: c.before, After: c.after, Limit: 10000})
			if err != nil {
				t.Fatal(err)
			}
			f, err := newScanner(g).scanFile(path)
			if err != nil || f == nil {
				t.Fatalf("scanFile: %v, %v", f, err)
			}
			want := naiveGrep(lines, regexp.MustCompile(c.pattern), c.before, c.after)
			if len(want) == 0 {
				t.Fatal("fixture has no matches")
			}
			if f.units != len(want) {
				t.Errorf("units = %d, want %d", f.units, len(want))
			}
			for i := range min(len(want), len(f.Lines)) {
				if f.Lines[i] != want[i] {
					t.Fatalf("line %d: got %+v, want %+v", i, f.Lines[i], want[i])
				}
			}
		})
	}
}

func TestGrepScannerCountsAndStopsEarly(t *testing.T) {
	path, lines := scannerFile(t, 2)
	re := regexp.MustCompile(`gamma|needle`)
	wantCount := 0
	for _, l := range lines {
		wantCount += len(re.FindAllStringIndex(l, -1))
	}
	g, _ := NewGrep(Query{Pattern: re.String(), Mode: CountMatches, Limit: 250})
	f, _ := newScanner(g).scanFile(path)
	if f == nil || f.Matches != wantCount {
		t.Errorf("count: got %+v, want %d matches", f, wantCount)
	}
	g, _ = NewGrep(Query{Pattern: re.String(), Limit: 250})
	f, _ = newScanner(g).scanFile(path)
	if f == nil || f.units != 1 {
		t.Errorf("files mode: got %+v, want one unit", f)
	}
}

func TestGrepScannerRejectsMatchesAcrossLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.txt")
	if err := os.WriteFile(path, []byte("end a\nb start\nab\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// \s can match the line break between "a" and "b"; without multiline it must not.
	g, _ := NewGrep(Query{Pattern: `a\s*b`, Mode: Content, Limit: 250})
	f, _ := newScanner(g).scanFile(path)
	if f == nil || len(f.Lines) != 1 || f.Lines[0].Num != 3 {
		t.Errorf("got %+v, want only line 3", f)
	}
}
