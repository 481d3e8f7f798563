package run

import (
	"fmt"
	"strings"
	"time"

	"github.com/kimi-run/kimi-run/event"
)

// announceSession says on stderr which session --continue resumes, and warns when it passed
// over a newer unfinished one (issue 17 #10).
func (r *runState) announceSession(warn func(string), quiet bool) {
	p := r.session
	switch {
	case p.skipped != "":
		warn(p.notice + "; " + p.skipped)
	case p.notice != "" && !quiet:
		fmt.Fprintf(r.sio.Stderr, "kimi-run: %s\n", p.notice)
	}
}

// metaPrompt is what the session listing shows as the run's prompt.
func metaPrompt(flow, prompt string) string {
	if strings.TrimSpace(prompt) == "" && flow != "" {
		return "flow " + flow
	}
	return prompt
}

// settleSession makes the session durable, points last-session at it after a run that exited
// 0, and records the outcome. It returns the result's session_warning: why the session on
// disk lacks part of the run, or why --continue will not find it; "" when all is well.
func (r *runState) settleSession(v verdict) string {
	p := &r.session
	if p.session == nil {
		return p.warning // no session could be kept at all
	}
	var problems []string
	if err := p.begun.wait(); err != nil {
		// The start's record could not be synced: the end's write below replaces it.
		r.emit(event.Warning{Message: err.Error()})
	}
	var err error
	if r.saveErr != nil {
		err = r.saveErr() // already reported by a warning when it happened
	}
	if err == nil {
		if err = p.session.Sync(); err != nil {
			r.emit(event.Warning{Message: err.Error()})
		}
	}
	if err != nil {
		problems = append(problems, fmt.Sprintf("the session was not saved whole: it ends at the last record written, and resuming it goes on from there (%v)", err))
	}
	if v.code == ExitOK {
		if err := p.recordLast(); err != nil {
			r.emit(event.Warning{Message: err.Error()})
			problems = append(problems, err.Error())
		}
	}
	warning := r.secrets.String(strings.Join(problems, "; "))
	if err := p.end(v, warning, time.Now()); err != nil {
		r.emit(event.Warning{Message: err.Error() + " (--list-sessions shows it as unknown)"})
	}
	return warning
}
