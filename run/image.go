package run

import (
	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/tools"
)

// mediaSupport is what the model reads by its capabilities, as --image checks image_in:
// ReadMediaFile is offered for either.
func mediaSupport(e config.Endpoint) tools.MediaSupport {
	return tools.MediaSupport{Images: e.Reads("image_in"), Videos: e.Reads("video_in")}
}
