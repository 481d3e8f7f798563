package run

import (
	"context"
	"errors"

	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/infile"
	"github.com/kimi-run/kimi-run/tools"
)

// loadImages reads the --image files before any model call. A model without the image_in
// capability is refused rather than sent pictures it would reject or ignore.
func loadImages(ctx context.Context, s *config.Settings) ([]event.Image, error) {
	cli := &s.Flags
	if len(cli.Image) == 0 {
		return nil, nil
	}
	if !s.Endpoint.Reads("image_in") {
		return nil, usagef("--image: the model %s does not have the image_in capability; give its config entry capabilities = [\"image_in\"] or set KIMI_MODEL_CAPABILITIES=image_in if it reads images", s.Endpoint.Model)
	}
	var out []event.Image
	for _, path := range cli.Image {
		data, err := infile.Read(ctx, path, infile.Image)
		var tl *infile.TooLargeError
		switch {
		case errors.As(err, &tl):
			return nil, usagef("--image %s is larger than %s", path, infile.Size(tl.Max))
		case err != nil:
			return nil, usagef("--image: %w", err)
		}
		// The type comes from the content, never the name, as for ReadMediaFile.
		mime, isImage, _ := tools.SniffMedia(data)
		if !isImage {
			return nil, usagef("--image %s is %s, not a PNG, JPEG, GIF or WebP image", path, mime)
		}
		out = append(out, event.Image{MIME: mime, Data: data})
	}
	return out, nil
}

// mediaSupport is what the model reads by its capabilities, as --image checks image_in:
// ReadMediaFile is offered for either.
func mediaSupport(e config.Endpoint) tools.MediaSupport {
	return tools.MediaSupport{Images: e.Reads("image_in"), Videos: e.Reads("video_in")}
}
