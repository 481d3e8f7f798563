package tools

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Kimi CLI's test files for ReadMediaFile (tests/tools/test_read_media_file.py): a PNG
// signature followed by bytes that are not a whole PNG, and the start of an MP4.
var (
	kimiPNG = []byte("\x89PNG\r\n\x1a\n" + "pngdata")
	kimiMP4 = []byte("\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom")
)

// TestReadMediaFileKimiCases re-expresses Kimi CLI's ReadMediaFile tests
// (tests/tools/test_read_media_file.py, v1.49): an image, an image without an extension, an
// image whose size can be read, a video, a text file, and a video for a model without
// video_in. The type comes from the content, never from the name.
func TestReadMediaFileKimiCases(t *testing.T) {
	dir := t.TempDir()
	pngPath := writeTestFile(t, dir, "sample.png", string(kimiPNG))
	bare := writeTestFile(t, dir, "sample", string(kimiPNG))
	mp4 := writeTestFile(t, dir, "sample.mp4", string(kimiMP4))
	txt := writeTestFile(t, dir, "sample.txt", "hello")
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 3, 4))); err != nil {
		t.Fatal(err)
	}
	valid := writeTestFile(t, dir, "valid.png", buf.String())
	both := NewReadMediaFile(Env{WorkDir: dir, Media: MediaSupport{Images: true, Videos: true}})
	imagesOnly := NewReadMediaFile(Env{WorkDir: dir, Media: MediaSupport{Images: true}})

	note := " If you need to output coordinates, output relative coordinates first and compute absolute coordinates using the original image size; if you generate or edit images/videos via commands or scripts, read the result back immediately before continuing."
	for _, tt := range []struct {
		name      string
		tool      Tool
		path      string
		mime      string
		data      []byte
		kimi      string // Kimi's message, as test_read_media_file.py snapshots it
		output    string // a part of kimi-run's own text
		wantError bool
	}{
		{name: "image", tool: both, path: pngPath, mime: "image/png", data: kimiPNG,
			kimi: "Loaded image file `" + pngPath + "` (image/png, 15 bytes)." + note, output: "(image/png, 15 bytes)"},
		{name: "image without an extension", tool: both, path: bare, mime: "image/png", data: kimiPNG,
			kimi: "Loaded image file `" + bare + "` (image/png, 15 bytes)." + note},
		{name: "image with a readable size", tool: both, path: valid, mime: "image/png", data: buf.Bytes(),
			kimi:   "Loaded image file `" + valid + "` (image/png, " + strconv.Itoa(buf.Len()) + " bytes, original size 3x4px)." + note,
			output: "3x4 pixels"},
		{name: "video", tool: both, path: mp4, mime: "video/mp4", data: kimiMP4,
			kimi: "Loaded video file `" + mp4 + "` (video/mp4, 24 bytes)." + note},
		{name: "text file", tool: both, path: txt, wantError: true,
			kimi: "`" + txt + "` is a text file. Use ReadFile to read text files.", output: "read it with ReadFile"},
		{name: "video without video_in", tool: imagesOnly, path: mp4, wantError: true,
			kimi: "The current model does not support video input.", output: "lacks the video_in capability"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := runSearchTool(t, tt.tool, map[string]any{"path": tt.path})
			if res.IsError != tt.wantError {
				t.Fatalf("IsError = %v, output %q", res.IsError, res.Output)
			}
			if res.Kimi == nil || res.Kimi.Message != tt.kimi {
				t.Errorf("Kimi message = %+v\nwant %q", res.Kimi, tt.kimi)
			}
			if !strings.Contains(res.Output, tt.output) {
				t.Errorf("output %q lacks %q", res.Output, tt.output)
			}
			if tt.wantError {
				if len(res.Media) != 0 {
					t.Errorf("an error result carries media: %v", res.Media)
				}
				return
			}
			if len(res.Media) != 1 || res.Media[0].MIME != tt.mime || !bytes.Equal(res.Media[0].Data, tt.data) || res.Media[0].Path != tt.path {
				t.Errorf("media = %+v, want one %s of the file's bytes from %s", res.Media, tt.mime, tt.path)
			}
		})
	}
}

// TestReadMediaFileRefusals: what cannot or must not reach the model is an error result
// the model reads, never media: an empty path or file, a file past the cap, a format no
// model is sent, an image for a model that takes only videos, a secret file, a path that
// walks out of the work dir, a directory and a FIFO.
func TestReadMediaFileRefusals(t *testing.T) {
	dir := t.TempDir()
	writeTestFile(t, dir, "empty.png", "")
	writeTestFile(t, dir, "doc.pdf", "%PDF-1.7\n\x00\x01\x02binary")
	writeTestFile(t, dir, "shot.png", string(kimiPNG))
	writeTestFile(t, dir, ".env", string(kimiPNG))
	big := filepath.Join(dir, "big.png")
	if err := os.WriteFile(big, append(append([]byte{}, kimiPNG...), make([]byte, MediaMaxBytes)...), 0o644); err != nil {
		t.Fatal(err)
	}
	tool := NewReadMediaFile(Env{WorkDir: dir, Media: MediaSupport{Images: true}})
	videosOnly := NewReadMediaFile(Env{WorkDir: dir, Media: MediaSupport{Videos: true}})
	for _, tt := range []struct {
		name string
		tool Tool
		path string
		want string
	}{
		{"empty path", tool, " ", "path is empty"},
		{"empty file", tool, "empty.png", "is empty"},
		{"past the cap", tool, big, "more than the 20 MiB"},
		{"pdf", tool, "doc.pdf", "is application/pdf, not an image"},
		{"image for a video model", videosOnly, "shot.png", "lacks the image_in capability"},
		{"secret file", tool, ".env", "refusing to read .env"},
		{"outside by a relative path", tool, "../shot.png", "leads outside the work dir"},
		{"directory", tool, dir, "is a directory"},
		{"missing", tool, "gone.png", "cannot read gone.png"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := runSearchTool(t, tt.tool, map[string]any{"path": tt.path})
			if !res.IsError || !strings.Contains(res.Output, tt.want) || len(res.Media) != 0 {
				t.Errorf("result %+v; want an error containing %q and no media", res, tt.want)
			}
		})
	}
}

// TestReadMediaFileDescription: the description says what the current model takes, as
// Kimi CLI's does (tests/tools/test_read_media_file_desc.py), and the cap it enforces.
func TestReadMediaFileDescription(t *testing.T) {
	for _, tt := range []struct {
		media MediaSupport
		want  string
	}{
		{MediaSupport{Images: true, Videos: true}, "Images (PNG, JPEG, GIF, WebP) and videos (MP4, WebM) can be read."},
		{MediaSupport{Images: true}, "the current model does not take videos"},
		{MediaSupport{Videos: true}, "the current model does not take images"},
	} {
		d := NewReadMediaFile(Env{Media: tt.media}).Description()
		if !strings.Contains(d, tt.want) || !strings.Contains(d, "up to 20 MiB") {
			t.Errorf("%+v: description lacks %q or the cap:\n%s", tt.media, tt.want, d)
		}
	}
	for _, tt := range []struct {
		media MediaSupport
		offer bool
	}{{MediaSupport{}, false}, {MediaSupport{Images: true}, true}, {MediaSupport{Videos: true}, true}} {
		offered := false
		for _, tool := range Builtins(Env{Media: tt.media}) {
			offered = offered || tool.Name() == "ReadMediaFile"
		}
		if offered != tt.offer {
			t.Errorf("media %+v: ReadMediaFile offered = %v, want %v (Kimi CLI skips it without image_in or video_in)", tt.media, offered, tt.offer)
		}
	}
}
