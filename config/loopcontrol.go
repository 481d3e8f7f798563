package config

// validate checks the [loop_control] keys the file sets against the bounds Kimi CLI puts on
// them (its LoopControl model in config.py), so that a file Kimi refuses is refused here
// too rather than run with a value Kimi never would. An error is a usage error (exit 2).
func (lc loopControl) validate() error {
	atLeast := func(key string, v *int, least int) error {
		if v != nil && *v < least {
			return Usagef("config: loop_control.%s must be at least %d, got %d", key, least, *v)
		}
		return nil
	}
	for _, check := range []struct {
		key   string
		v     *int
		least int
	}{
		{"max_steps_per_turn", lc.MaxStepsPerTurn, 1},
		{"max_steps_per_run", lc.MaxStepsPerRun, 1},
		{"max_retries_per_step", lc.MaxRetriesPerStep, 1},
		{"max_ralph_iterations", lc.MaxRalphIterations, -1},
		// Room kept for the reply: below 1000 tokens no answer fits.
		{"reserved_context_size", lc.ReservedContextSize, 1000},
	} {
		if err := atLeast(check.key, check.v, check.least); err != nil {
			return err
		}
	}
	if r := lc.CompactionTriggerRatio; r != nil && (*r < 0.5 || *r > 0.99) {
		return Usagef("config: loop_control.compaction_trigger_ratio must be between 0.5 and 0.99, got %g", *r)
	}
	return nil
}

// deref is the value v points to, or the zero value.
func deref[T any](v *T) T {
	if v == nil {
		var zero T
		return zero
	}
	return *v
}
