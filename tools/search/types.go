package search

import (
	"slices"
	"strings"
	"sync"
)

// fileTypes maps the file types a Query accepts to base-name globs. Both engines use this
// table (rg receives it through --type-add), so a type selects the same files either way.
// It is built on first use rather than at start-up.
var fileTypes = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"c":         {"*.c", "*.h"},
		"cpp":       {"*.cpp", "*.cc", "*.cxx", "*.c++", "*.hpp", "*.hh", "*.hxx", "*.h", "*.inl"},
		"cs":        {"*.cs"},
		"css":       {"*.css", "*.scss", "*.sass", "*.less"},
		"dart":      {"*.dart"},
		"docker":    {"*Dockerfile*", "*.dockerfile"},
		"go":        {"*.go"},
		"html":      {"*.html", "*.htm"},
		"java":      {"*.java"},
		"js":        {"*.js", "*.jsx", "*.mjs", "*.cjs", "*.vue"},
		"json":      {"*.json", "*.jsonc"},
		"kotlin":    {"*.kt", "*.kts"},
		"lua":       {"*.lua"},
		"make":      {"Makefile", "makefile", "GNUmakefile", "*.mk", "*.mak"},
		"md":        {"*.md", "*.markdown", "*.mdown", "*.mkdn", "*.mdx"},
		"php":       {"*.php"},
		"proto":     {"*.proto"},
		"py":        {"*.py", "*.pyi"},
		"ruby":      {"*.rb", "*.gemspec", "Gemfile", "Rakefile"},
		"rust":      {"*.rs"},
		"scala":     {"*.scala", "*.sbt"},
		"sh":        {"*.sh", "*.bash", "*.zsh"},
		"sql":       {"*.sql"},
		"swift":     {"*.swift"},
		"terraform": {"*.tf", "*.tfvars"},
		"toml":      {"*.toml"},
		"ts":        {"*.ts", "*.tsx", "*.mts", "*.cts"},
		"txt":       {"*.txt"},
		"xml":       {"*.xml", "*.xsd", "*.xsl"},
		"yaml":      {"*.yaml", "*.yml"},
		"zig":       {"*.zig"},
	}
})

// typeAliases are other names models commonly use for the same types.
var typeAliases = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"python": "py", "javascript": "js", "typescript": "ts", "rs": "rust", "markdown": "md",
		"golang": "go", "rb": "ruby", "shell": "sh", "bash": "sh", "yml": "yaml", "kt": "kotlin",
		"c++": "cpp", "csharp": "cs", "protobuf": "proto", "tf": "terraform", "text": "txt",
	}
})

// lookupType returns the globs of a file type, or ok=false when it is unknown.
func lookupType(name string) (globs []string, ok bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	if alias, found := typeAliases()[name]; found {
		name = alias
	}
	globs, ok = fileTypes()[name]
	return globs, ok
}

// TypeNames returns the file types a Query accepts, sorted. Common other names (python,
// golang, yml, ...) are accepted too.
func TypeNames() []string {
	names := make([]string, 0, len(fileTypes()))
	for n := range fileTypes() {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
