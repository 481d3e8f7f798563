package tools

import (
	"context"
	"encoding/json"
	"testing"
)

// decodeOnly builds the tool wrapper of every built-in argument type with a function that
// does nothing, so the fuzzer exercises argument decoding without running commands or
// touching files.
func decodeOnly() []Tool {
	return []Tool{
		New("Shell", "", Facts{}, func(context.Context, shellArgs) (Result, error) { return Text("ok"), nil }),
		New("WriteFile", "", Facts{}, func(context.Context, writeFileArgs) (Result, error) { return Text("ok"), nil }),
		New("ReadFile", "", Facts{}, func(context.Context, readFileArgs) (Result, error) { return Text("ok"), nil }),
		New("StrReplaceFile", "", Facts{}, func(context.Context, strReplaceArgs) (Result, error) { return Text("ok"), nil }),
		New("Glob", "", Facts{}, func(context.Context, globArgs) (Result, error) { return Text("ok"), nil }),
		New("Grep", "", Facts{}, func(context.Context, grepArgs) (Result, error) { return Text("ok"), nil }),
		New("FetchURL", "", Facts{}, func(context.Context, fetchArgs) (Result, error) { return Text("ok"), nil }),
		New("Think", "", Facts{}, func(context.Context, thinkArgs) (Result, error) { return Text("ok"), nil }),
		New("SetTodoList", "", Facts{}, func(context.Context, todoArgs) (Result, error) { return Text("ok"), nil }),
		New("Agent", "", Facts{}, func(context.Context, agentArgs) (Result, error) { return Text("ok"), nil }),
		New("SendDMail", "", Facts{}, func(context.Context, dmailArgs) (Result, error) { return Text("ok"), nil }),
	}
}

// FuzzToolArgs feeds arbitrary bytes as arguments: decoding must never panic or return a
// Go error (which would stop the run); bad input is an error result the model can read.
func FuzzToolArgs(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"command":"ls","timeout":5}`, `{"path":"a","line_offset":-3,"n_lines":1e9}`,
		`{"path":"a","edit":{"old":"x","new":"y"}}`, `{"path":"a","edit":[{"old":"x","new":"y","replace_all":true}]}`,
		`{"path":"a","edit":"{\"old\":\"x\",\"new\":\"y\"}"}`, `{"todos":[{"title":"t","status":"done"}]}`,
		`{"pattern":"**/*.go","-A":-1,"head_limit":99999999999999999999}`, `[]`, `null`, `"x"`, `{"a":`, "\xff", "",
	} {
		f.Add([]byte(s))
	}
	ts := decodeOnly()
	f.Fuzz(func(t *testing.T, args []byte) {
		for _, tool := range ts {
			res, err := tool.Run(context.Background(), json.RawMessage(args))
			if err != nil {
				t.Fatalf("%s: Go error for bad arguments %q: %v", tool.Name(), args, err)
			}
			// Empty arguments are no arguments (a tool whose parameters are all optional,
			// SetTodoList's, runs); anything else that is not JSON is refused.
			if len(args) > 0 && !json.Valid(args) && !res.IsError {
				t.Fatalf("%s accepted invalid JSON %q", tool.Name(), args)
			}
		}
	})
}
