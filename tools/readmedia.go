package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/kimi-run/kimi-run/internal/infile"
	"github.com/kimi-run/kimi-run/tools/search"
)

// MediaMaxBytes is the largest file ReadMediaFile sends, as --image: every later request
// of the conversation carries it again, base64-encoded, and providers refuse far larger
// requests anyway.
var MediaMaxBytes = infile.Image.Max

const readMediaDescription = `Look at an image or a video file: its content is put into your context, so you see it as it is.

path is absolute, or relative to the work dir (a relative path may not leave the work dir).
{media_kinds}
Files up to {media_max} are read. Text files are refused (read them with ReadFile), and so are other binary formats: inspect those with Shell.
Several files can be read at once with parallel calls.`

// kimiMediaNote ends Kimi CLI's message for a medium read (tools/file/read_media.py), for
// its message lines.
const kimiMediaNote = " If you need to output coordinates, output relative coordinates first and " +
	"compute absolute coordinates using the original image size; if you generate or " +
	"edit images/videos via commands or scripts, read the result back immediately " +
	"before continuing."

// readMediaArgs are the arguments of a ReadMediaFile call.
type readMediaArgs struct {
	Path string `json:"path" description:"image or video file to look at: absolute, or relative to the work dir"`
}

// readMediaFacts: a read of one named file in kimi-run's own process.
var readMediaFacts = Facts{ReadsFiles: true, PathArg: "path", ReadOnly: true}

// NewReadMediaFile returns the ReadMediaFile tool, offered to a model that reads images or
// videos (env.Media).
func NewReadMediaFile(env Env) Tool {
	kinds := "Images (PNG, JPEG, GIF, WebP) and videos (MP4, WebM) can be read."
	switch m := env.Media; {
	case m.Images && !m.Videos:
		kinds = "Images (PNG, JPEG, GIF, WebP) can be read; the current model does not take videos."
	case m.Videos && !m.Images:
		kinds = "Videos (MP4, WebM) can be read; the current model does not take images."
	}
	desc := strings.Replace(readMediaDescription, "{media_kinds}", kinds, 1)
	return New("ReadMediaFile", desc, readMediaFacts, func(ctx context.Context, in readMediaArgs) (Result, error) {
		return readMedia(ctx, env, in)
	})
}

func readMedia(ctx context.Context, env Env, in readMediaArgs) (Result, error) {
	path, err := ResolvePath(env.WorkDir, in.Path, env.AddDirs...)
	if errors.Is(err, errEmptyPath) {
		return Errorf("path is empty: name the image or video file to read").WithKimi("File path cannot be empty.", ""), nil
	}
	if err != nil {
		return Errorf("cannot read: %v", err), nil
	}
	if reason, ok := search.SensitiveFile(path); ok {
		return Errorf("refusing to read %s: %s, and what is read is sent to the model provider", in.Path, reason).Deny(DeniedByGuard, SecretFileRule), nil
	}
	f, err := infile.Open(ctx, path, infile.ToolRead)
	var nr *infile.NotRegularError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Errorf("cannot read %s: %v", in.Path, err).WithKimi(fmt.Sprintf("`%s` does not exist.", in.Path), ""), nil
	case errors.As(err, &nr):
		return Errorf("%v; only regular files can be read", &infile.NotRegularError{Path: in.Path, Mode: nr.Mode}).
			WithKimi(fmt.Sprintf("`%s` is not a file.", in.Path), ""), nil
	case err != nil:
		return Errorf("cannot read %s: %v", in.Path, err), nil
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return Errorf("cannot read %s: %v", in.Path, err), nil
	}
	switch size := info.Size(); {
	case size == 0:
		return Errorf("%s is empty", in.Path).WithKimi(fmt.Sprintf("`%s` is empty.", path), ""), nil
	case size > MediaMaxBytes:
		return Errorf("%s is %d bytes, more than the %s ReadMediaFile sends", in.Path, size, infile.Size(MediaMaxBytes)), nil
	}
	// The size was checked, but a file may grow while it is read: never more than the cap.
	data, err := io.ReadAll(io.LimitReader(f, MediaMaxBytes+1))
	if err != nil {
		if ctx.Err() != nil {
			return Errorf("reading %s was cancelled", in.Path), nil
		}
		return Errorf("cannot read %s: %v", in.Path, err), nil
	}
	if int64(len(data)) > MediaMaxBytes {
		return Errorf("%s grew past %s while it was read", in.Path, infile.Size(MediaMaxBytes)), nil
	}
	mime, isImage, isVideo := SniffMedia(data)
	switch {
	case !isImage && !isVideo && !looksBinary(data[:min(len(data), readSniffBytes)]):
		return Errorf("%s is a text file (%s); read it with ReadFile", in.Path, mime).
			WithKimi(fmt.Sprintf("`%s` is a text file. Use ReadFile to read text files.", in.Path), ""), nil
	case !isImage && !isVideo:
		return Errorf("%s is %s, not an image (PNG, JPEG, GIF, WebP) or a video (MP4, WebM) that can be sent to the model; inspect it with Shell instead", in.Path, mime).
			WithKimi(fmt.Sprintf("`%s` seems not readable as an image or video file.", in.Path), ""), nil
	case isImage && !env.Media.Images:
		return Errorf("%s is an image (%s), and the current model does not read images (it lacks the image_in capability)", in.Path, mime).
			WithKimi("The current model does not support image input.", ""), nil
	case isVideo && !env.Media.Videos:
		return Errorf("%s is a video (%s), and the current model does not read videos (it lacks the video_in capability)", in.Path, mime).
			WithKimi("The current model does not support video input.", ""), nil
	}
	kind := "image"
	if isVideo {
		kind = "video"
	}
	size, kimiSize := fmt.Sprintf("%s, %d bytes", mime, len(data)), ""
	if w, h, ok := imageSize(data); ok && isImage {
		size += fmt.Sprintf(", %dx%d pixels", w, h)
		kimiSize = fmt.Sprintf(", original size %dx%dpx", w, h)
	}
	out := fmt.Sprintf("The %s %s (%s) is attached to this result. "+
		"To give positions in it, work in fractions of its width and height first and convert them with its size; "+
		"after changing an image or video with a command, read it again before relying on it.", kind, path, size)
	res := Text(out).WithKimi(fmt.Sprintf("Loaded %s file `%s` (%s, %d bytes%s).%s", kind, path, mime, len(data), kimiSize, kimiMediaNote), "")
	res.Media = []Media{{MIME: mime, Data: data, Path: path}}
	return res, nil
}
