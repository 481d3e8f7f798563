package tools

// Warm builds the tables every run reads and no run's input changes — the built-in tools
// (their schemas compacted once, their descriptions' limits filled in, the shell looked
// up) — ahead of their first use. A run starts it on the second core while it parses its
// command line, which it cannot do in parallel (issue 31); the first user of a table that
// is still being built waits for it rather than building it again. Safe from any
// goroutine, at any time, any number of times.
func Warm() {
	schemaIndex()
	limitText()
	allBuiltins()
}
