package tools

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
func naiveGrep(lines []string, re *regexp.Regexp, before, after int) []grepLine {
	var out []grepLine
	lastShown := 0 // number of the last line output
	owed := 0
	for i, l := range lines {
		num := i + 1
		if re.MatchString(l) {
			for b := max(lastShown+1, num-before); b < num; b++ {
				out = append(out, grepLine{num: b, text: lineText([]byte(lines[b-1]))})
			}
			out = append(out, grepLine{num: num, text: lineText([]byte(l)), match: true})
			lastShown, owed = num, after
			continue
		}
		if owed > 0 {
			out = append(out, grepLine{num: num, text: lineText([]byte(l))})
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
			q, msg := newGrepQuery(grepArgs{Pattern: c.pattern, OutputMode: "content",
				Before: &c.before, After: &c.after, HeadLimit: new(int)})
			if msg != "" {
				t.Fatal(msg)
			}
			f, err := newGrepScanner(q).scanFile(path)
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
			for i := range min(len(want), len(f.lines)) {
				if f.lines[i] != want[i] {
					t.Fatalf("line %d: got %+v, want %+v", i, f.lines[i], want[i])
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
	q, _ := newGrepQuery(grepArgs{Pattern: re.String(), OutputMode: "count_matches"})
	f, _ := newGrepScanner(q).scanFile(path)
	if f == nil || f.matches != wantCount {
		t.Errorf("count: got %+v, want %d matches", f, wantCount)
	}
	q, _ = newGrepQuery(grepArgs{Pattern: re.String()})
	f, _ = newGrepScanner(q).scanFile(path)
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
	q, _ := newGrepQuery(grepArgs{Pattern: `a\s*b`, OutputMode: "content"})
	f, _ := newGrepScanner(q).scanFile(path)
	if f == nil || len(f.lines) != 1 || f.lines[0].num != 3 {
		t.Errorf("got %+v, want only line 3", f)
	}
}
