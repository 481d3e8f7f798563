//go:build ignore

// genparseflags writes parseflags_gen.go from flags.go (go generate ./config).
package main

import (
	"fmt"
	"os"

	"github.com/kimi-run/kimi-run/internal/flaggen"
)

func main() {
	src, err := flaggen.ParseFlags("flags.go")
	if err == nil {
		err = os.WriteFile("parseflags_gen.go", src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genparseflags:", err)
		os.Exit(1)
	}
}
