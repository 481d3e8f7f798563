package cassette

// ShapeDiff says how live differs from recorded, two request bodies read by read, as a
// strict replay (an exact one with exact) sees it; "" when it does not.
func ShapeDiff(read Reader, recorded, live []byte, exact bool) string {
	return newShape(read, recorded, "", scrubber{}).diff(newShape(read, live, "", scrubber{}), exact).detail
}
