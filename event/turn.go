package event

// The turn contract between the agent, which runs turns, and the flow runner, which asks
// for them. It lives here so that ralph/ needs nothing of the model client.

// TurnSpec describes one agent turn: one user prompt run until the model answers without
// tool calls.
type TurnSpec struct {
	// Prompt is the user message that opens the turn.
	Prompt string
	// Images are attached to the prompt (--image), for a model that reads images.
	Images []Image
	// Iteration and Node label the turn in events when a flow runs it.
	Iteration int
	Node      string
}

// Image is a picture (or a video) in the conversation: attached to a prompt (--image), or
// to a tool's result (ReadMediaFile). MIME says which: image/png, video/mp4, …
type Image struct {
	MIME string
	Data []byte
	// Path is the file a tool read it from, told to the model beside it; empty for --image.
	Path string
}

// StopReason says why a turn ended.
type StopReason string

// Turn stop reasons.
const (
	StopCompleted StopReason = "completed" // the model answered without tool calls
	StopMaxSteps  StopReason = "max_steps" // the per-turn step budget ran out
	StopRepeat    StopReason = "repeat"    // the loop guard stopped a repeating model
	StopTruncated StopReason = "truncated" // the final answer was still cut at the token limit after the continuations
)

// TurnOutcome is what a finished turn produced.
type TurnOutcome struct {
	// FinalText is the text of the last assistant message.
	FinalText string
	// Steps is the number of model calls the turn made; ToolCalls the number of tool calls.
	Steps     int
	ToolCalls int
	// StopReason says why the turn ended.
	StopReason StopReason
}
