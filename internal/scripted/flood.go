package scripted

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
)

// SayBytes streams n bytes of content ("x" repeated), per bytes to a chunk, generated as
// they are sent, so a test can stream gigabytes without holding them; n < 0 never ends
// (until the client goes away): a reply that keeps sending text for ever. With per = n the
// whole text is one chunk, one data line.
func SayBytes(n int64, per int64) Part {
	return addStep(step{kind: stepFlood, n: n, per: per, data: floodChunk()}, n < 0)
}

// floodChunk is one data event whose content is the marker floodText, which the server
// replaces by the chunk's bytes as it writes them.
func floodChunk() []byte {
	var buf bytes.Buffer
	buf.WriteString("data: ")
	c := chunk{ID: chunkID, Object: "chat.completion.chunk", Created: createdAt, Model: Model,
		Choices: []choice{{Delta: delta{Content: ptr(floodText)}}}}
	if err := json.NewEncoder(&buf).Encode(c); err != nil {
		panic(err) // fixed types cannot fail
	}
	buf.WriteString("\n")
	return buf.Bytes()
}

const floodText = "\x00flood\x00"

// floodPiece is what a flood's content is written from.
var floodPiece = strings.Repeat("x", 32<<10)

// writeFlood writes one chunk of a flood: data with per bytes of content.
func writeFlood(w io.Writer, data []byte, per int64) error {
	marker, _ := json.Marshal(floodText)
	before, after, _ := bytes.Cut(data, marker[1:len(marker)-1])
	if _, err := w.Write(before); err != nil {
		return err
	}
	for left := per; left > 0; {
		piece := floodPiece[:min(int64(len(floodPiece)), left)]
		if _, err := io.WriteString(w, piece); err != nil {
			return err
		}
		left -= int64(len(piece))
	}
	_, err := w.Write(after)
	return err
}
