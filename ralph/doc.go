// Package ralph drives agent turns: flows, small graphs of turns (begin, task, decision,
// end) read from Mermaid or D2 flowcharts (a flow file, or a skill that carries one: see
// package skills); the Ralph loop, which is a flow built in code; and a conversation, the
// user messages of stdin answered one after the other (conversation.go). Runner.Drive runs
// a run's Plan: one turn, the Ralph loop or a flow (drive.go).
//
// A flow runs in one agent session. Each task or decision node is one agent turn whose
// prompt is the node's label; a decision's prompt also lists its branch labels and asks
// for <choice>LABEL</choice>. The last such tag in the reply wins and must match a label
// exactly. A reply without a valid choice is asked again, with a note, at most MaxReasks
// times; then the run fails with a *ChoiceError instead of looping for ever.
//
// The begin and end nodes are found by their label, BEGIN and END in any case, as Kimi
// CLI does; words such as start or stop are ordinary labels.
//
// Every node run is one move. A run ends at the end node (OutcomeCompleted, or OutcomeStop
// for the Ralph loop), when the move budget is spent (OutcomeBudgetExhausted, reported as
// terminal_reason max_iterations), when a turn stops on its step limit or the repeat guard
// (OutcomeTurnStopped), or on an error. The runner emits an iteration event each time it
// leaves a node.
//
// The Ralph loop (--ralph N) is BEGIN → R1 (the prompt) → R2 (the prompt, a note on the
// loop, and the choice CONTINUE or STOP), where CONTINUE returns to R2 and STOP leads to
// END: at most N+1 turns. By default every iteration sees the whole conversation so far,
// which lets the model build on earlier work but fills the context on long loops. With
// --ralph-fresh every iteration starts from the context as it was before the first one,
// so the model keeps only what it wrote to files: the context stays small and each
// iteration judges the work afresh, at the price of forgetting findings that were not
// written down.
package ralph
