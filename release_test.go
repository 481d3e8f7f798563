package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// The release configuration (issue 19 #1, #3): what goreleaser puts in every archive, the
// SBOMs and checksums, and the container image the examples refer to. `goreleaser check`
// itself is run by hand (README "Development"); this keeps the facts it cannot judge.

func TestReleaseArchivesCarryLicenceCompletionsAndManPage(t *testing.T) {
	var cfg struct {
		Before struct {
			Hooks []string `yaml:"hooks"`
		} `yaml:"before"`
		Archives []struct {
			Files []string `yaml:"files"`
		} `yaml:"archives"`
		SBOMs []struct {
			Artifacts string `yaml:"artifacts"`
			Disable   string `yaml:"disable"`
		} `yaml:"sboms"`
		Checksum struct {
			NameTemplate string `yaml:"name_template"`
		} `yaml:"checksum"`
		Release struct {
			GitHub struct {
				Owner string `yaml:"owner"`
				Name  string `yaml:"name"`
			} `yaml:"github"`
		} `yaml:"release"`
	}
	b, err := os.ReadFile(".goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	if len(cfg.Archives) == 0 {
		t.Fatal("no archives")
	}
	for _, a := range cfg.Archives {
		for _, want := range []string{"LICENSE", "README.md", "completions/*", "manpages/*"} {
			if !slices.Contains(a.Files, want) {
				t.Errorf("an archive lacks %s: files %v", want, a.Files)
			}
		}
	}
	for _, a := range cfg.Archives {
		// What each pattern takes from this checkout: documents, never Go source (issue 29
		// #6: docs/* shipped docs/docs.go).
		for _, pat := range a.Files {
			matches, err := filepath.Glob(pat)
			if err != nil {
				t.Errorf("archive file pattern %q: %v", pat, err)
			}
			for _, m := range matches {
				if strings.HasSuffix(m, ".go") {
					t.Errorf("archive file pattern %q ships Go source %s", pat, m)
				}
			}
			if len(matches) == 0 && !strings.HasPrefix(pat, "completions/") && !strings.HasPrefix(pat, "manpages/") {
				t.Errorf("archive file pattern %q matches nothing in the checkout", pat)
			}
		}
	}
	// A snapshot must pass on a machine without syft (issue 29 #1): the SBOM is for releases.
	if len(cfg.SBOMs) == 0 || cfg.SBOMs[0].Artifacts != "archive" || cfg.SBOMs[0].Disable != "{{ .IsSnapshot }}" {
		t.Errorf("sboms %+v: want one SBOM per archive, for releases only", cfg.SBOMs)
	}
	if cfg.Checksum.NameTemplate == "" {
		t.Errorf("no checksum file")
	}
	// Without a named repository goreleaser reads it from the git remote, which a fresh
	// clone of a mirror, or a tarball, does not have.
	if cfg.Release.GitHub.Owner == "" || cfg.Release.GitHub.Name == "" {
		t.Errorf("release.github names no repository")
	}
	if !slices.ContainsFunc(cfg.Before.Hooks, func(h string) bool { return strings.Contains(h, "scripts/release-extras.sh") }) {
		t.Errorf("no before hook writes completions/ and manpages/")
	}
}

// TestReleaseExtras runs the before hook and checks it writes what the archives take.
func TestReleaseExtras(t *testing.T) {
	if testing.Short() {
		t.Skip("builds kimi-run")
	}
	dir := t.TempDir()
	cmd := exec.Command("sh", "scripts/release-extras.sh", "9.8.7", dir)
	cmd.Env = append(os.Environ(), "SOURCE_DATE_EPOCH=1767323045") // 2026-01-02T03:04:05Z
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("release-extras.sh: %v\n%s", err, out)
	}
	for name, want := range map[string]string{
		"completions/kimi-run.bash": "complete -o default -F _kimi_run kimi-run",
		"completions/_kimi-run":     "#compdef kimi-run",
		"completions/kimi-run.fish": "complete -c kimi-run",
		"manpages/kimi-run.1":       `.TH KIMI\-RUN 1 "2026-01-02" "kimi\-run 9.8.7"`,
	} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %q", name, want)
		}
	}
}

// TestImageReference: the image the release workflow pushes is the one the examples and
// the Dockerfile name, and the Dockerfile copies the binary from where scripts/image puts it.
func TestImageReference(t *testing.T) {
	const ref = "ghcr.io/kimi-run/kimi-run"
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if w := read(".github/workflows/release.yml"); !strings.Contains(w, "go run -C scripts ./image") || !strings.Contains(w, "-push "+ref) ||
		!strings.Contains(w, `-tag "$version"`) || !strings.Contains(w, "scripts/busybox.sh") {
		t.Errorf("the release workflow does not push both images to %s with scripts/image", ref)
	}
	for _, f := range []string{"examples/kubernetes/job.yaml", "examples/kubernetes/cronjob.yaml", "examples/gitlab/gitlab-ci.yml", "examples/container/Dockerfile"} {
		if !strings.Contains(read(f), ref) {
			t.Errorf("%s does not name the image %s", f, ref)
		}
	}
	if !regexp.MustCompile(`binaryPath\s+= "/usr/local/bin/kimi-run"`).MatchString(read("scripts/image/build.go")) ||
		!strings.Contains(read("examples/container/Dockerfile"), "COPY --from=kimi-run /usr/local/bin/kimi-run ") {
		t.Errorf("the Dockerfile does not copy the binary from where scripts/image puts it")
	}
}

// TestReleaseToolsStayOutOfTheProduct: the image builder's dependencies (go-containerregistry,
// and through it docker/cli and logrus) live in scripts/go.mod, not in the module graph of
// the binary (issue 28 #6).
func TestReleaseToolsStayOutOfTheProduct(t *testing.T) {
	root, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"github.com/google/go-containerregistry", "github.com/docker/", "github.com/sirupsen/logrus"} {
		if strings.Contains(string(root), m) {
			t.Errorf("go.mod requires %s, a dependency of the release scripts only", m)
		}
	}
	scripts, err := os.ReadFile(filepath.Join("scripts", "go.mod"))
	if err != nil {
		t.Fatalf("scripts/ is not a module of its own: %v", err)
	}
	if !strings.Contains(string(scripts), "module github.com/kimi-run/kimi-run/scripts") ||
		!strings.Contains(string(scripts), "github.com/google/go-containerregistry") {
		t.Errorf("scripts/go.mod does not hold the image builder's dependencies:\n%s", scripts)
	}
}
