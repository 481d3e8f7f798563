package agentspec

// The built-in agent files are known when the binary is built, so their YAML is decoded
// then (issue 31): builtindocs_gen.go holds each file as the decoder gives it, as Go
// literals that a run builds without parsing anything, and readDoc takes them from there.
// TestBuiltinDocsGenerated (builtindocs_test.go) writes that file from every .yaml file
// under builtin/ and fails when it is stale, so a new or changed agent file needs
// `go generate ./agentspec` (or that test with -update) and nothing else.

//go:generate go test -run TestBuiltinDocsGenerated -update
