module github.com/kimi-run/kimi-run

go 1.26.8

require (
	github.com/alecthomas/kong v1.17.0 // indirect
	github.com/avast/retry-go/v4 v4.7.0 // indirect
	github.com/bmatcuk/doublestar/v4 v4.10.4 // indirect
	github.com/mattn/go-colorable v0.1.14 // indirect
	github.com/mattn/go-isatty v0.0.24 // indirect
	github.com/rs/zerolog v1.35.1 // indirect
	github.com/sashabaranov/go-openai v1.43.0 // indirect
	golang.org/x/net v0.61.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/tools v0.52.0 // indirect
)
