package model

import "context"

type modelIDKey struct{}

// WithModelID returns a context whose model calls ask for the model id rather than the
// client's own (an Agent call that names a model for its subagent). Clients do not read
// it: the run's model router does, and sends those calls to a client of that id.
func WithModelID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, modelIDKey{}, id)
}

// ModelID returns the model id a call's context asks for, or "".
func ModelID(ctx context.Context) string {
	id, _ := ctx.Value(modelIDKey{}).(string)
	return id
}
