package scrub

import "io"

// Writer scrubs a stream whose writes may cut a secret in two (a pipe read in pieces): it
// holds back the bytes at the end of each write that begin a form, or the base64 lines
// that may begin a wrapped one, and writes them with what follows them, or at Close.
// Output that ends otherwise is written at once.
type Writer struct {
	w    io.Writer
	set  *Set
	held []byte
}

// NewWriter returns a Writer to w scrubbing the secrets of set (none when set is nil).
func NewWriter(w io.Writer, set *Set) *Writer { return &Writer{w: w, set: set} }

// Write scrubs and writes p, but for an end of it that begins a form.
func (w *Writer) Write(p []byte) (int, error) {
	clean := w.set.Bytes(append(w.held, p...))
	cut := len(clean) - max(w.set.partial(clean), w.set.wrapTail(clean))
	w.held = append(w.held[:0:0], clean[cut:]...)
	if cut == 0 {
		return len(p), nil
	}
	if _, err := w.w.Write(clean[:cut]); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Close writes what is held back. It does not close the underlying writer.
func (w *Writer) Close() error {
	if len(w.held) == 0 {
		return nil
	}
	_, err := w.w.Write(w.set.Bytes(w.held))
	w.held = nil
	return err
}
