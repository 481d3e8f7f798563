// Command image builds kimi-run's container images without a Docker daemon or a base
// image, with go-containerregistry, in two variants for each platform:
//
//   - the agent image (tags VERSION, latest): the static binary, CA certificates, the
//     non-root user 65532, and a static busybox with its applets (sh, ls, grep, sed, awk,
//     find, diff, patch, tar, wget, ...) on PATH, so the agent's Shell tool works inside;
//   - the static image (tags VERSION-static, latest-static): the same without busybox and
//     without a shell, to copy the binary from or to run tasks that need no commands.
//
// The release runs it on goreleaser's linux binaries and pushes both multi-platform
// indexes; CI builds them into an OCI layout and opens it with skopeo and umoci
// (image_test.go).
//
// Usage:
//
//	go run -C scripts ./image -dist "$PWD/dist" -busybox linux/amd64=PATH -busybox linux/arm64=PATH \
//	  -version 1.2.3 -tag 1.2.3 -tag latest -oci "$PWD/dist/image" [-push ghcr.io/OWNER/kimi-run]
//	go run -C scripts ./image -binary linux/amd64=PATH [-busybox linux/amd64=PATH] -oci DIR
//
// -dist reads goreleaser's dist/artifacts.json for the linux binaries. -busybox names a
// static busybox per platform (scripts/busybox.sh fetches Debian's busybox-static); given
// for none, only the static image is built. -ca-bundle is a PEM file of trusted roots, by
// default the build machine's (Debian's ca-certificates installs
// /etc/ssl/certs/ca-certificates.crt). The OCI layout is a standard one: index.json names
// one image index per tag (org.opencontainers.image.ref.name), so `skopeo copy
// oci:DIR:TAG ...` and `umoci unpack --image DIR:TAG` open it as it is. Nothing is fetched
// from a network unless -push names a repository, which gets every tag of both variants,
// with the credentials of `docker login` / `crane auth`. Times in the image are
// SOURCE_DATE_EPOCH when set, else the Unix epoch, so two builds of the same inputs give
// the same digests.
//
// scripts/ is a Go module of its own, so that go-containerregistry and what it brings
// (docker/cli, logrus) stay out of kimi-run's module graph.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

type binaries map[string]string // "linux/amd64" -> path

func (b binaries) String() string { return fmt.Sprint(map[string]string(b)) }

func (b binaries) Set(s string) error {
	plat, path, ok := strings.Cut(s, "=")
	if !ok || !strings.HasPrefix(plat, "linux/") {
		return fmt.Errorf("want linux/ARCH=PATH, got %q", s)
	}
	b[plat] = path
	return nil
}

type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(s string) error { *l = append(*l, s); return nil }

// options are the command line.
type options struct {
	bins, busybox binaries
	dist          string
	version, ca   string
	tags          []string
	oci, push     string
}

func main() {
	o := options{bins: binaries{}, busybox: binaries{}}
	var tags list
	flag.Var(o.bins, "binary", "linux/ARCH=PATH of a static kimi-run binary (repeatable)")
	flag.Var(o.busybox, "busybox", "linux/ARCH=PATH of a static busybox for the agent image (repeatable: one per platform)")
	flag.StringVar(&o.dist, "dist", "", "goreleaser's dist directory: take the linux binaries from its artifacts.json")
	flag.StringVar(&o.version, "version", "dev", "the version for the images' labels")
	flag.Var(&tags, "tag", "a tag of the agent image; the static image gets TAG-static (repeatable; default: the version)")
	flag.StringVar(&o.ca, "ca-bundle", caPath, "PEM file of the CA certificates to ship")
	flag.StringVar(&o.oci, "oci", "", "write the images to this OCI layout directory, one image index per tag")
	flag.StringVar(&o.push, "push", "", "push every tag of both images to this repository (e.g. ghcr.io/OWNER/kimi-run)")
	flag.Parse()
	o.tags = tags
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	if o.dist != "" {
		found, err := fromDist(o.dist)
		if err != nil {
			return err
		}
		for k, v := range found {
			o.bins[k] = v
		}
	}
	if len(o.bins) == 0 {
		return errors.New("no binary: give -binary or -dist")
	}
	if o.oci == "" && o.push == "" {
		return errors.New("nowhere to put the images: give -oci or -push")
	}
	if len(o.tags) == 0 {
		o.tags = []string{o.version}
	}
	images, err := Build(Inputs{Binaries: o.bins, Busybox: o.busybox, Version: o.version, CAFile: o.ca, Created: created()})
	if err != nil {
		return err
	}
	tagged := tagsOf(images, o.tags)
	if o.oci != "" {
		if err := writeLayout(o.oci, tagged); err != nil {
			return err
		}
	}
	if o.push != "" {
		repo, err := name.NewRepository(o.push)
		if err != nil {
			return fmt.Errorf("push %s: %w", o.push, err)
		}
		for _, t := range tagged {
			ref := repo.Tag(t.tag)
			if err := remote.WriteIndex(ref, t.index, remote.WithAuthFromKeychain(authn.DefaultKeychain)); err != nil {
				return fmt.Errorf("push %s: %w", ref, err)
			}
			fmt.Println("pushed", ref.Name())
		}
	}
	return nil
}

// taggedIndex is one tag and the image index it names.
type taggedIndex struct {
	tag   string
	index v1.ImageIndex
}

// tagsOf gives the agent image the tags as given and the static image each with
// "-static", in a fixed order.
func tagsOf(images Images, tags []string) []taggedIndex {
	var out []taggedIndex
	for _, t := range tags {
		if images.Agent != nil {
			out = append(out, taggedIndex{t, images.Agent})
		}
		out = append(out, taggedIndex{t + "-static", images.Static})
	}
	return out
}

// writeLayout writes a standard OCI image layout: the blobs, and index.json listing one
// image index per tag, named by the org.opencontainers.image.ref.name annotation.
func writeLayout(dir string, tagged []taggedIndex) error {
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("write OCI layout %s: %w", dir, err)
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return fmt.Errorf("write OCI layout %s: %w", dir, err)
	}
	for _, t := range tagged {
		if err := p.AppendIndex(t.index, layout.WithAnnotations(map[string]string{refName: t.tag})); err != nil {
			return fmt.Errorf("write OCI layout %s: %s: %w", dir, t.tag, err)
		}
	}
	return nil
}

// refName is the annotation that names a tag in an OCI layout's index.json.
const refName = "org.opencontainers.image.ref.name"

// created is SOURCE_DATE_EPOCH, else the epoch.
func created() time.Time {
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return time.Unix(n, 0).UTC()
		}
	}
	return time.Unix(0, 0).UTC()
}

// fromDist finds the linux binaries goreleaser built, in dist/artifacts.json.
func fromDist(dist string) (binaries, error) {
	b, err := os.ReadFile(filepath.Join(dist, "artifacts.json"))
	if err != nil {
		return nil, fmt.Errorf("read goreleaser's artifact list: %w", err)
	}
	var arts []struct {
		Path   string `json:"path"`
		Goos   string `json:"goos"`
		Goarch string `json:"goarch"`
		Type   string `json:"type"`
	}
	if err := json.Unmarshal(b, &arts); err != nil {
		return nil, fmt.Errorf("read goreleaser's artifact list: %w", err)
	}
	// goreleaser writes paths relative to the project, the directory dist is in.
	project := filepath.Dir(filepath.Clean(dist))
	out := binaries{}
	for _, a := range arts {
		if a.Type == "Binary" && a.Goos == "linux" {
			p := a.Path
			if !filepath.IsAbs(p) {
				p = filepath.Join(project, p)
			}
			out["linux/"+a.Goarch] = p
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s lists no linux binary", filepath.Join(dist, "artifacts.json"))
	}
	return out, nil
}
