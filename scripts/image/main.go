// Command image builds kimi-run's container image without a Docker daemon or a base image:
// one layer holding the static binary, a CA bundle, a passwd/group naming the non-root
// user 65532, its home and /tmp, assembled with go-containerregistry. The release runs it
// on goreleaser's linux binaries and pushes the multi-platform index; CI builds the same
// image into an OCI layout and inspects it offline (image_test.go).
//
// Usage:
//
//	go run -C scripts ./image -dist "$PWD/dist" -version 1.2.3 -oci "$PWD/dist/image" [-push REF ...]
//	go run -C scripts ./image -binary linux/amd64=PATH [-binary linux/arm64=PATH] -oci DIR
//
// scripts/ is a Go module of its own, so that go-containerregistry and what it brings
// (docker/cli, logrus) stay out of kimi-run's module graph.
//
// -dist reads goreleaser's dist/artifacts.json for the linux binaries. -ca-bundle is a PEM
// file of trusted roots, by default the build machine's (Debian's ca-certificates package
// installs /etc/ssl/certs/ca-certificates.crt). Nothing is fetched from a network unless
// -push names a registry; pushing uses the credentials of `docker login` / `crane auth`.
// Times in the image are SOURCE_DATE_EPOCH when set, else the Unix epoch, so two builds of
// the same inputs give the same digest.
package main

import (
	"archive/tar"
	"bytes"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image's fixed facts; image_test.go checks them in a built image.
const (
	binaryPath = "/usr/local/bin/kimi-run"
	caPath     = "/etc/ssl/certs/ca-certificates.crt"
	uid        = 65532
	home       = "/home/nonroot"
	source     = "https://github.com/kimi-run/kimi-run"
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

func main() {
	bins := binaries{}
	var push list
	flag.Var(bins, "binary", "linux/ARCH=PATH of a static kimi-run binary (repeatable)")
	dist := flag.String("dist", "", "goreleaser's dist directory: take the linux binaries from its artifacts.json")
	version := flag.String("version", "dev", "the version for the image's labels")
	ca := flag.String("ca-bundle", caPath, "PEM file of the CA certificates to ship")
	oci := flag.String("oci", "", "write the image index to this OCI layout directory")
	flag.Var(&push, "push", "push the image index to this reference (repeatable)")
	flag.Parse()
	if err := run(bins, *dist, *version, *ca, *oci, push); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run(bins binaries, dist, version, ca, oci string, push []string) error {
	if dist != "" {
		found, err := fromDist(dist)
		if err != nil {
			return err
		}
		for k, v := range found {
			bins[k] = v
		}
	}
	if len(bins) == 0 {
		return errors.New("no binary: give -binary or -dist")
	}
	if oci == "" && len(push) == 0 {
		return errors.New("nowhere to put the image: give -oci or -push")
	}
	idx, err := Build(bins, version, ca, created())
	if err != nil {
		return err
	}
	if oci != "" {
		if _, err := layout.Write(oci, idx); err != nil {
			return fmt.Errorf("write OCI layout %s: %w", oci, err)
		}
	}
	for _, ref := range push {
		r, err := name.ParseReference(ref)
		if err != nil {
			return fmt.Errorf("push %s: %w", ref, err)
		}
		if err := remote.WriteIndex(r, idx, remote.WithAuthFromKeychain(authn.DefaultKeychain)); err != nil {
			return fmt.Errorf("push %s: %w", ref, err)
		}
		fmt.Println("pushed", r.Name())
	}
	return nil
}

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

// Build assembles one image per platform and the index over them.
func Build(bins binaries, version, caFile string, when time.Time) (v1.ImageIndex, error) {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("read the CA bundle: %w", err)
	}
	if !x509.NewCertPool().AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s holds no PEM certificate", caFile)
	}
	var idx v1.ImageIndex = empty.Index
	idx = mutate.IndexMediaType(idx, types.OCIImageIndex)
	// In a fixed order, so the index's digest depends only on its inputs.
	for _, plat := range slices.Sorted(maps.Keys(bins)) {
		bin, err := os.ReadFile(bins[plat])
		if err != nil {
			return nil, fmt.Errorf("read the %s binary: %w", plat, err)
		}
		arch := strings.TrimPrefix(plat, "linux/")
		img, err := image(bin, pem, arch, version, when)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", plat, err)
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add:        img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: arch}},
		})
	}
	return idx, nil
}

func image(bin, pem []byte, arch, version string, when time.Time) (v1.Image, error) {
	layerTar, err := rootfs(bin, pem, when)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, fmt.Errorf("layer: %w", err)
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{Layer: layer, History: v1.History{
		Created: v1.Time{Time: when}, CreatedBy: "scripts/image: kimi-run, CA certificates, user 65532",
	}})
	if err != nil {
		return nil, fmt.Errorf("append layer: %w", err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Created = "linux", arch, v1.Time{Time: when}
	cf.Config.Entrypoint = []string{binaryPath}
	cf.Config.User = fmt.Sprintf("%d:%d", uid, uid)
	cf.Config.WorkingDir = home
	cf.Config.Env = []string{
		"PATH=/usr/local/bin",
		"HOME=" + home,
		"SSL_CERT_FILE=" + caPath,
	}
	cf.Config.Labels = map[string]string{
		"org.opencontainers.image.title":    "kimi-run",
		"org.opencontainers.image.version":  version,
		"org.opencontainers.image.source":   source,
		"org.opencontainers.image.licenses": "Apache-2.0",
	}
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return img, nil
}

// rootfs is the image's only layer, its entries in a fixed order with fixed times.
func rootfs(bin, pem []byte, when time.Time) ([]byte, error) {
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:%s:/sbin/nologin\n", uid, uid, home)
	group := fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", uid)
	entries := []struct {
		name  string
		mode  int64
		owner int
		body  []byte
		isDir bool
	}{
		{name: "etc/", mode: 0o755, isDir: true},
		{name: "etc/passwd", mode: 0o644, body: []byte(passwd)},
		{name: "etc/group", mode: 0o644, body: []byte(group)},
		{name: "etc/ssl/", mode: 0o755, isDir: true},
		{name: "etc/ssl/certs/", mode: 0o755, isDir: true},
		{name: strings.TrimPrefix(caPath, "/"), mode: 0o644, body: pem},
		{name: "home/", mode: 0o755, isDir: true},
		{name: strings.TrimPrefix(home, "/") + "/", mode: 0o700, owner: uid, isDir: true},
		{name: "tmp/", mode: 0o1777, isDir: true},
		{name: "usr/", mode: 0o755, isDir: true},
		{name: "usr/local/", mode: 0o755, isDir: true},
		{name: "usr/local/bin/", mode: 0o755, isDir: true},
		{name: strings.TrimPrefix(binaryPath, "/"), mode: 0o755, body: bin},
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: e.mode, Uid: e.owner, Gid: e.owner, ModTime: when, Format: tar.FormatPAX}
		if e.isDir {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(e.body))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, fmt.Errorf("layer: %w", err)
		}
		if _, err := tw.Write(e.body); err != nil {
			return nil, fmt.Errorf("layer: %w", err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("layer: %w", err)
	}
	return buf.Bytes(), nil
}
