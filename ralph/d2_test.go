package ralph

import "testing"

func TestParseD2(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string
	}{
		{
			name: "chain with the label on the last edge",
			src: lines(
				"# a comment",
				"start: BEGIN",
				"start -> write -> finish: done # trailing comment",
				"finish: End",
			),
			want: lines(
				`start begin "BEGIN" @2`,
				`write task "write" @3`,
				`finish end "End" @4`,
				`start -> write "" @3`,
				`write -> finish "done" @3`,
			),
		},
		{
			name: "decision, blocks, properties and keywords",
			src: lines(
				"direction: right",
				"vars: {",
				"  x: 1",
				"}",
				"BEGIN -> check",
				"check: Do the tests pass? {",
				"  shape: diamond",
				"  inner -> ignored",
				"}",
				"check.style.fill: red",
				"check.shape: diamond",
				"check -> END: yes",
				"check -> fix: no {style.stroke-dash: 3}",
				"fix.label: 'Fix them'",
				"(check -> fix)[0].style.stroke: red",
				"fix -> check; END",
			),
			want: lines(
				`BEGIN begin "BEGIN" @5`,
				`check decision "Do the tests pass?" @6`,
				`END end "END" @12`,
				`fix task "Fix them" @14`,
				`BEGIN -> check "" @5`,
				`check -> END "yes" @12`,
				`check -> fix "no" @13`,
				`fix -> check "" @16`,
			),
		},
		{
			name: "block string, quotes, reverse arrows, dotted ids",
			src: lines(
				`b: "BEGIN"`,
				"work.a: |md",
				"  # Do the work",
				"    carefully",
				"|",
				"b -> work.a",
				"e <- work.a: \"all \\\"done\\\"\"",
				"e: END",
				`e2: ||md a | b ||`,
				"e2 -> e",
			),
			want: lines(
				`b begin "BEGIN" @1`,
				`work.a task "# Do the work\n  carefully" @2`,
				`e end "END" @8`,
				`e2 task "a | b" @9`,
				`b -> work.a "" @6`,
				`work.a -> e "all \"done\"" @7`,
				`e2 -> e "" @10`,
			),
		},
		{
			name: "no spaces around arrows, dashes in ids",
			src:  lines("BEGIN->my-task->END", "my-task: step-one"),
			want: lines(
				`BEGIN begin "BEGIN" @1`,
				`my-task task "step-one" @2`,
				`END end "END" @1`,
				`BEGIN -> my-task "" @1`,
				`my-task -> END "" @1`,
			),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
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

func TestParseD2Errors(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		want    string
		problem error
	}{
		{
			name: "undirected",
			src:  lines("BEGIN -> a", "a -- END"),
			want: `flow.d2:2: node "a": undirected connection -- has no direction; use ->`,
		},
		{
			name: "two-way",
			src:  lines("BEGIN <-> END"),
			want: `flow.d2:1: node "BEGIN": two-way connection <-> has no direction; use ->`,
		},
		{
			name: "unterminated block",
			src:  lines("BEGIN -> END", "", "a: x {", "  shape: circle"),
			want: `flow.d2:3: unterminated { block`,
		},
		{
			name: "unterminated block string",
			src:  lines("BEGIN -> a", "a: |md", "  work"),
			want: `flow.d2:2: node "a": unterminated block string: missing closing |`,
		},
		{
			name: "unterminated quote",
			src:  lines(`a: "work`),
			want: `flow.d2:1: node "a": unterminated quoted label`,
		},
		{
			name: "key with a space",
			src:  lines("BEGIN -> my task"),
			want: `flow.d2:1: node "my": unexpected "task"`,
		},
		{
			name: "missing target",
			src:  lines("BEGIN ->"),
			want: `flow.d2:1: expected a node id ([A-Za-z0-9_][A-Za-z0-9_./-]*), found ""`,
		},
		{
			name: "quoted key",
			src:  lines(`"a b" -> c`),
			want: `flow.d2:1: expected a node id ([A-Za-z0-9_][A-Za-z0-9_./-]*), found "\"a b\" -> c"`,
		},
		{
			name:    "duplicate branch label",
			src:     lines("BEGIN -> c", "c -> END: ok", "c -> d: ok", "d -> c"),
			want:    `flow.d2:3: node "c": duplicate branch label "ok"`,
			problem: ErrDuplicateBranchLabel,
		},
		{
			name:    "end unreachable",
			src:     lines("BEGIN -> a", "a -> a", "", "END"),
			want:    `flow.d2:4: node "END": end node cannot be reached from the begin node`,
			problem: ErrEndUnreachable,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseD2("flow.d2", []byte(tt.src))
			if err == nil {
				t.Fatal("ParseD2 succeeded, want an error")
			}
			if err.Error() != tt.want {
				t.Errorf("error:\n got %s\nwant %s", err, tt.want)
			}
			checkErrorType(t, err, tt.problem)
		})
	}
}
