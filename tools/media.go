package tools

import (
	"bytes"
	"image"
	_ "image/gif" // image.DecodeConfig reads the sizes of the formats sent
	_ "image/jpeg"
	_ "image/png"
	"net/http"
	"slices"
	"strings"
)

// Media is an image or a video a tool puts into the model's context (ReadMediaFile). The
// agent sends it with the tool's result to a model that reads it; events and the text
// renderers show the result's Output only.
type Media struct {
	// MIME is the type sniffed from the content (never the file name): image/png, …
	MIME string
	// Data is the file's content.
	Data []byte
	// Path is the file it was read from, told to the model beside it so that several
	// media in one conversation can be told apart.
	Path string
}

// IsVideo reports whether m is a video rather than an image.
func (m Media) IsVideo() bool { return strings.HasPrefix(m.MIME, "video/") }

// MediaSupport says what media the model reads: its image_in and video_in capabilities.
type MediaSupport struct {
	Images, Videos bool
}

// Any reports whether the model reads any media at all.
func (s MediaSupport) Any() bool { return s.Images || s.Videos }

// ImageTypes are the image formats vision endpoints take (OpenAI's, Moonshot's), by the
// type sniffed from the content: --image and ReadMediaFile accept these.
var ImageTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// VideoTypes are the video formats ReadMediaFile sends to a model with video_in.
var VideoTypes = []string{"video/mp4", "video/webm"}

// SniffMedia returns the media type of content from its first bytes, and whether it is an
// image or a video of a type the model may be sent. The type is what net/http sniffs
// (image/png, text/plain; charset=utf-8, application/octet-stream, …).
func SniffMedia(head []byte) (mime string, image, video bool) {
	mime = http.DetectContentType(head)
	return mime, slices.Contains(ImageTypes, mime), slices.Contains(VideoTypes, mime)
}

// imageSize is an image's width and height in pixels, when the standard library reads its
// format (PNG, JPEG, GIF; not WebP).
func imageSize(data []byte) (w, h int, ok bool) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 {
		return 0, 0, false
	}
	return cfg.Width, cfg.Height, true
}
