package ralph

import (
	"errors"
	"testing"
)

// TestKimiD2Flows reads the D2 flowcharts of Kimi CLI's tests/core/test_agent_flow.py the
// way Kimi does: same nodes, kinds and labels (edge order is the file's, Kimi sorts its
// snapshot). Each case names the Kimi test it follows.
func TestKimiD2Flows(t *testing.T) {
	tests := []struct {
		kimiTest string
		src      string
		want     string
	}{
		{
			kimiTest: "test_parse_d2_flowchart_typical_example",
			src: lines(
				`a: "append a random line to file test.txt"`,
				"a.shape: rectangle",
				"a.foo.bar",
				`b: "does test.txt contain more than 3 lines?" {`,
				"  sub1 -> sub2",
				"  sub2: {",
				"    1",
				"  }",
				"}",
				"BEGIN -> a -> b",
				"b -> a: no",
				"not_used",
				"b -> END: yes",
				"b -> END: yes2",
			),
			// a.foo.bar and not_used lead nowhere, but nothing reaches them either.
			want: lines(
				`a task "append a random line to file test.txt" @1`,
				`a.foo.bar task "a.foo.bar" @3`,
				`b decision "does test.txt contain more than 3 lines?" @4`,
				`BEGIN begin "BEGIN" @10`,
				`not_used task "not_used" @12`,
				`END end "END" @13`,
				`a -> b "" @10`,
				`b -> a "no" @11`,
				`b -> END "yes" @13`,
				`b -> END "yes2" @14`,
				`BEGIN -> a "" @10`,
			),
		},
		{
			kimiTest: "test_parse_d2_flowchart_markdown_block_label",
			src:      lines("BEGIN -> explanation -> END", "explanation: |md", "  # I can do headers", "  - lists", "  - lists", "", "  And other normal markdown stuff", "|"),
			want: lines(
				`BEGIN begin "BEGIN" @1`,
				`explanation task "# I can do headers\n- lists\n- lists\n\nAnd other normal markdown stuff" @2`,
				`END end "END" @1`,
				`BEGIN -> explanation "" @1`,
				`explanation -> END "" @1`,
			),
		},
		{
			kimiTest: "test_parse_d2_flowchart_markdown_block_escapes_quotes",
			src:      lines("BEGIN -> note -> END", "note: |md", `  Use "quotes" and \\ paths`, "|"),
			want:     lines(`BEGIN begin "BEGIN" @1`, `note task "Use \"quotes\" and \\\\ paths" @2`, `END end "END" @1`, `BEGIN -> note "" @1`, `note -> END "" @1`),
		},
		{
			kimiTest: "test_parse_d2_flowchart_markdown_block_with_comment",
			src:      lines("BEGIN -> note -> END", "note: |md # keep this as markdown", "  A: B", "|"),
			want:     lines(`BEGIN begin "BEGIN" @1`, `note task "A: B" @2`, `END end "END" @1`, `BEGIN -> note "" @1`, `note -> END "" @1`),
		},
		{
			kimiTest: "test_parse_d2_flowchart_markdown_block_dedent",
			src:      lines("BEGIN -> note -> END", "note: |md", "    line one", "      line two", "    line three", "|"),
			want:     lines(`BEGIN begin "BEGIN" @1`, `note task "line one\n  line two\nline three" @2`, `END end "END" @1`, `BEGIN -> note "" @1`, `note -> END "" @1`),
		},
		{
			// Kimi's docs/en/customization/skills.md, "D2 format example".
			kimiTest: "docs: skills.md D2 example",
			src:      lines("BEGIN -> B -> C", "B: Analyze the code, write a design doc", "C: Is the design doc detailed enough?", "C -> B: No", "C -> D: Yes", "D: Start implementation", "D -> END"),
			want: lines(
				`BEGIN begin "BEGIN" @1`,
				`B task "Analyze the code, write a design doc" @2`,
				`C decision "Is the design doc detailed enough?" @3`,
				`D task "Start implementation" @6`,
				`END end "END" @7`,
				`BEGIN -> B "" @1`,
				`B -> C "" @1`,
				`C -> B "No" @4`,
				`C -> D "Yes" @5`,
				`D -> END "" @7`,
			),
		},
	}
	for _, tt := range tests {
		t.Run(tt.kimiTest, func(t *testing.T) {
			f, err := ParseD2("flow.d2", []byte(tt.src))
			if err != nil {
				t.Fatalf("ParseD2: %v", err)
			}
			if got := describe(f); got != tt.want {
				t.Errorf("flow:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

// TestKimiFlowRefusals: what Kimi CLI refuses is refused here too (test_agent_flow.py:
// test_parse_d2_flowchart_markdown_block_unclosed, test_parse_flowchart_multi_edges_require_labels),
// and a reachable node that leads nowhere still is (Kimi stops such a flow at run time;
// kimi-run says so before any model call).
func TestKimiFlowRefusals(t *testing.T) {
	for name, tt := range map[string]struct {
		parse func() error
		is    error
	}{
		"markdown block unclosed": {parse: func() error {
			_, err := ParseD2("flow.d2", []byte(lines("BEGIN -> note -> END", "note: |md", "  missing terminator")))
			return err
		}},
		"multi edges require labels": {parse: func() error {
			_, err := ParseMermaid("flow.mmd", []byte(lines("flowchart TD", "A([BEGIN]) --> B[Pick]", "B --> C([END])", "B --> D([END])")))
			return err
		}},
		"reachable dead end": {parse: func() error {
			_, err := ParseD2("flow.d2", []byte(lines("BEGIN -> a", "BEGIN -> END", "a")))
			return err
		}},
		"reachable dead end, one begin edge": {parse: func() error {
			_, err := ParseD2("flow.d2", []byte(lines("BEGIN -> c", "c -> END: ok", "c -> a: no")))
			return err
		}, is: ErrDeadEnd},
	} {
		t.Run(name, func(t *testing.T) {
			err := tt.parse()
			if err == nil {
				t.Fatal("accepted, want an error")
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v, want %v", err, tt.is)
			}
		})
	}
}
