package runplan

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/kimi-run/kimi-run/sandbox"
	"github.com/kimi-run/kimi-run/tools"
	"github.com/kimi-run/kimi-run/tools/policy"
)

// Guard wraps the tools that act in kimi-run's process with the checks the kernel makes
// for commands, as their facts ask: a write outside the writable roots, and the network
// while it is cut; deny hears of each refusal. Commands are confined by the kernel itself
// (the launcher); what Shell's were refused is reported from their output (refusedWrites).
// MCP servers are confined as ConfineServers decides (docs/sandbox.md); reading is allowed
// everywhere in every mode.
func (s *Plan) Guard(ts []tools.Tool, deny func(policy.Denial)) []tools.Tool {
	if !s.policy.Active() {
		return ts
	}
	out := make([]tools.Tool, len(ts))
	for i, t := range ts {
		out[i] = t
		if check := s.checkFor(t.Facts()); check != nil {
			out[i] = &confined{Tool: t, check: check, deny: deny}
		}
		if t.Facts().Where == tools.InCommand && s.restrictsWrites() {
			out[i] = refusedWrites{Tool: t, plan: s}
		}
	}
	return out
}

// checkFor returns the check a tool with facts f needs under this sandbox, or nil.
func (s *Plan) checkFor(f tools.Facts) func(json.RawMessage) error {
	inProcess := f.Where == tools.InProcess
	write := inProcess && f.WritesFiles && s.policy.Mode != sandbox.Off
	// Under --allow-host FetchURL goes through the proxy, which decides.
	network := inProcess && f.Network && s.policy.NoNetwork && !s.policy.Proxy()
	if !write && !network {
		return nil
	}
	return func(args json.RawMessage) error {
		if write {
			if err := s.checkWrite(f.PathArg, args); err != nil {
				return err
			}
		}
		if network {
			return fmt.Errorf("the network is cut for this run (--sandbox-network off)")
		}
		return nil
	}
}

// checkWrite resolves a write tool's path argument key as the tool does and checks it. An
// argument the tool would reject anyway is left to the tool; a tool that names no path
// argument cannot be allowed, as nothing says where it writes.
func (s *Plan) checkWrite(key string, args json.RawMessage) error {
	if key == "" {
		return fmt.Errorf("the sandbox (%s) cannot tell where this tool writes", s.policy.Mode)
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(args, &fields) != nil {
		return nil
	}
	var p string
	if json.Unmarshal(fields[key], &p) != nil {
		return nil
	}
	abs, err := tools.ResolvePath(s.workDir, p)
	if err != nil {
		return nil
	}
	return s.policy.CanWrite(abs)
}

// confined is a tool whose calls the sandbox checks first.
type confined struct {
	tools.Tool
	check func(json.RawMessage) error
	deny  func(policy.Denial)
}

// Run implements tools.Tool.
func (c *confined) Run(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	if err := c.check(args); err != nil {
		msg := fmt.Sprintf("not run: %v. The sandbox is set by the caller; do the task within it, or say in your final answer what could not be done.", err)
		if c.deny != nil {
			c.deny(policy.Denial{CallID: tools.CallID(ctx), Tool: c.Name(), Rule: "sandbox", Reason: msg})
		}
		return tools.Result{Output: msg, IsError: true}.Deny(tools.DeniedBySandbox, "sandbox"), nil
	}
	return c.Tool.Run(ctx, args)
}
