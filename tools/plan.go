package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
)

// PlanMode is the state EnterPlanMode and ExitPlanMode share: whether plan mode is on and
// the file the plan is written to. kimi-run runs unattended, so both tools answer as Kimi
// CLI's print mode does (src/kimi_cli/tools/plan/enter.py, plan/__init__.py at 1.49.0):
// entering is approved at once, and leaving approves the plan the file holds.
type PlanMode struct {
	path string
	mu   sync.Mutex
	on   bool
}

// NewPlanMode returns plan mode, off, with its plan kept in the file at path (absolute).
func NewPlanMode(path string) *PlanMode { return &PlanMode{path: path} }

const enterPlanDescription = `Switch to plan mode before a large or unclear change: study the code, write a
plan to the plan file, then call ExitPlanMode. In this unattended run the switch is approved
at once and the answer names the plan file.`

const exitPlanDescription = `Leave plan mode once the plan file holds your plan. In this unattended run the
plan is approved at once and its text comes back to you; then carry it out.`

type enterPlanArgs struct{}

type exitPlanArgs struct {
	Options []planOption `json:"options,omitempty" null:"true" default:"null" maxItems:"3" description:"alternative approaches the plan offers, 2 or 3; nobody chooses in this run, so say in the plan which one you take"`
}

type planOption = struct {
	Label       string `json:"label" description:"the approach, in a few words"`
	Description string `json:"description,omitempty" default:"\"\"" description:"what it means"`
}

// NewEnterPlanMode returns the EnterPlanMode tool over env.Plan.
func NewEnterPlanMode(env Env) Tool {
	return New("EnterPlanMode", enterPlanDescription, Facts{ReadOnly: true, RootOnly: true}, func(context.Context, enterPlanArgs) (Result, error) {
		p := env.Plan
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.on {
			return Errorf("plan mode is already on: write the plan to %s, then call ExitPlanMode", p.path), nil
		}
		p.on = true
		return Text(fmt.Sprintf("Plan mode is on (approved automatically: nobody is present to confirm).\nPlan file: %s\n"+
			"Study what the change needs (an Agent with subagent_type explore helps), write the plan to the plan file with WriteFile, "+
			"refine it with StrReplaceFile, then call ExitPlanMode.", p.path)), nil
	})
}

// NewExitPlanMode returns the ExitPlanMode tool over env.Plan.
func NewExitPlanMode(env Env) Tool {
	return New("ExitPlanMode", exitPlanDescription, Facts{ReadsFiles: true, ReadOnly: true, RootOnly: true}, func(context.Context, exitPlanArgs) (Result, error) {
		p := env.Plan
		p.mu.Lock()
		defer p.mu.Unlock()
		if !p.on {
			return Errorf("plan mode is off: ExitPlanMode is for leaving it (EnterPlanMode turns it on)"), nil
		}
		data, err := os.ReadFile(p.path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return Errorf("cannot read the plan file %s: %v", p.path, err), nil
		}
		if strings.TrimSpace(string(data)) == "" {
			return Errorf("the plan file %s holds no plan: write it there with WriteFile first, then call ExitPlanMode", p.path), nil
		}
		p.on = false
		return Text(fmt.Sprintf("The plan is approved automatically (nobody is present to review it) and plan mode is off.\nPlan file: %s\n\nThe approved plan:\n%s", p.path, data)), nil
	})
}
