package config

import "slices"

// codingModels are the model ids Kimi CLI credits with image and video input whatever their
// config entry says (llm.py derive_model_capabilities): the models of a `kimi login`.
var codingModels = []string{"kimi-for-coding", "kimi-code"}

// Reads reports whether the model takes media of capability c (image_in or video_in): its
// config entry or KIMI_MODEL_CAPABILITIES lists it, or Kimi CLI credits its model id with it.
func (e Endpoint) Reads(c string) bool {
	return slices.Contains(e.Capabilities, c) || slices.Contains(codingModels, e.Model)
}
