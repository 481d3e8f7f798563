package manpage_test

import (
	"strings"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/kimi-run/kimi-run/manpage"
)

type cli struct {
	Format string `name:"output-format" enum:"text,json" default:"text" help:"text: the answer on stdout as plain text for a person or a file; json: one blob .This starts the next line, where roff would read it as a request."`
	Prompt string `short:"p" placeholder:"TEXT" help:"The task."`
}

const description = `Run once.

Environment (flags win over it):
  KIMI_API_KEY, KIMI_BASE_URL       key and endpoint (default https://api.moonshot.ai/v1), a long line that no terminal of 80 columns holds
  NO_COLOR                          no colour on stderr
  OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_*
                                    names too long for the column, the meaning
                                    on the lines below
A server on localhost needs no key.

Exit codes: 0 done, 1 error.`

func TestWrite(t *testing.T) {
	var c cli
	p, err := kong.New(&c, kong.Name("kimi-run"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := manpage.Write(&b, p.Model, manpage.Page{Description: description, Version: "1.2.3 (abc1234, 2026-01-02)", Date: "2026-01-02"}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if !strings.HasPrefix(page, `.TH KIMI\-RUN 1 "2026-01-02" "kimi\-run 1.2.3" "User Commands"`+"\n") {
		t.Errorf(".TH line: %.80q", page)
	}
	for _, want := range []string{
		// The environment table as tagged paragraphs, which wrap at any width.
		".TP\n\\fBKIMI_API_KEY\\fR, \\fBKIMI_BASE_URL\\fR\nkey and endpoint",
		".TP\n\\fBNO_COLOR\\fR\nno colour on stderr\n",
		".TP\n\\fBOTEL_EXPORTER_OTLP_ENDPOINT\\fR, \\fBOTEL_*\\fR\nnames too long for the column, the meaning on the lines below\n",
		".PP\nA server on localhost needs no key.\n",
		".SH EXIT STATUS\n0 done, 1 error.\n",
		"\\fB\\-\\-output\\-format\\fR=\\fItext|json\\fR",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q:\n%s", want, page)
		}
	}
	if !strings.Contains(page, "\n\\&.This") {
		t.Errorf("the line that starts with a dot is not escaped:\n%s", page)
	}
	for i, l := range strings.Split(page, "\n") {
		if len(l) > 80 {
			t.Errorf("line %d has %d bytes: %s", i+1, len(l), l)
		}
		if strings.HasPrefix(l, ".") && !strings.HasPrefix(l, ".TH") && !strings.HasPrefix(l, ".S") &&
			!strings.HasPrefix(l, ".TP") && !strings.HasPrefix(l, ".PP") && !strings.HasPrefix(l, ".B") && l != ".br" {
			t.Errorf("line %d reads as a request: %s", i+1, l)
		}
	}
}
