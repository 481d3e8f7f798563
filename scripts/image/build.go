package main

import (
	"archive/tar"
	"bytes"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path"
	"slices"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The images' fixed facts; image_test.go checks them in built images.
const (
	binaryPath  = "/usr/local/bin/kimi-run"
	busyboxPath = "/bin/busybox"
	caPath      = "/etc/ssl/certs/ca-certificates.crt"
	uid         = 65532
	home        = "/home/nonroot"
	source      = "https://github.com/kimi-run/kimi-run"
	agentPATH   = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"
)

// Inputs are what the images are made of.
type Inputs struct {
	Binaries binaries // kimi-run per platform
	Busybox  binaries // a static busybox per platform; empty: no agent image
	Version  string
	CAFile   string
	Created  time.Time
}

// Images are the two variants, each an index over the platforms.
type Images struct {
	Agent  v1.ImageIndex // nil without busybox
	Static v1.ImageIndex
}

// Build assembles both variants for every platform.
func Build(in Inputs) (Images, error) {
	pem, err := os.ReadFile(in.CAFile)
	if err != nil {
		return Images{}, fmt.Errorf("read the CA bundle: %w", err)
	}
	if !x509.NewCertPool().AppendCertsFromPEM(pem) {
		return Images{}, fmt.Errorf("%s holds no PEM certificate", in.CAFile)
	}
	var applets []string
	if len(in.Busybox) > 0 {
		for plat := range in.Binaries {
			if in.Busybox[plat] == "" {
				return Images{}, fmt.Errorf("no -busybox for %s: give one per platform, or none", plat)
			}
		}
		if applets, err = appletsOf(in.Busybox); err != nil {
			return Images{}, err
		}
	}
	var static, agent v1.ImageIndex = index(), index()
	// In a fixed order, so the indexes' digests depend only on their inputs.
	for _, plat := range slices.Sorted(maps.Keys(in.Binaries)) {
		arch := strings.TrimPrefix(plat, "linux/")
		bin, err := os.ReadFile(in.Binaries[plat])
		if err != nil {
			return Images{}, fmt.Errorf("read the %s binary: %w", plat, err)
		}
		base, err := layer(baseEntries(bin, pem), in.Created)
		if err != nil {
			return Images{}, fmt.Errorf("%s: %w", plat, err)
		}
		img, err := image([]layerInfo{{base, "kimi-run, CA certificates, user 65532"}}, arch, in, "/usr/local/bin",
			"kimi-run, static: no shell")
		if err != nil {
			return Images{}, fmt.Errorf("%s: %w", plat, err)
		}
		static = addPlatform(static, img, arch)
		if applets == nil {
			continue
		}
		bb, err := os.ReadFile(in.Busybox[plat])
		if err != nil {
			return Images{}, fmt.Errorf("read the %s busybox: %w", plat, err)
		}
		tools, err := layer(busyboxEntries(bb, applets), in.Created)
		if err != nil {
			return Images{}, fmt.Errorf("%s: %w", plat, err)
		}
		img, err = image([]layerInfo{{base, "kimi-run, CA certificates, user 65532"}, {tools, "busybox: sh and the basic tools"}},
			arch, in, agentPATH, "kimi-run with a shell and the basic tools (busybox)")
		if err != nil {
			return Images{}, fmt.Errorf("%s: %w", plat, err)
		}
		agent = addPlatform(agent, img, arch)
	}
	out := Images{Static: static}
	if applets != nil {
		out.Agent = agent
	}
	return out, nil
}

func index() v1.ImageIndex { return mutate.IndexMediaType(empty.Index, types.OCIImageIndex) }

func addPlatform(idx v1.ImageIndex, img v1.Image, arch string) v1.ImageIndex {
	return mutate.AppendManifests(idx, mutate.IndexAddendum{
		Add:        img,
		Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: arch}},
	})
}

// appletsOf asks a busybox that runs on this machine where its applets go ("bin/sh",
// "usr/bin/awk", ...): the same Debian build for every platform has the same list.
func appletsOf(busybox binaries) ([]string, error) {
	var errs []error
	for _, plat := range slices.Sorted(maps.Keys(busybox)) {
		out, err := exec.Command(busybox[plat], "--list-full").Output()
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", busybox[plat], err))
			continue
		}
		var applets []string
		for _, p := range strings.Fields(string(out)) {
			if p != strings.TrimPrefix(busyboxPath, "/") && slices.Contains([]string{"bin", "sbin", "usr/bin", "usr/sbin"}, path.Dir(p)) {
				applets = append(applets, p)
			}
		}
		if !slices.Contains(applets, "bin/sh") {
			return nil, fmt.Errorf("%s has no sh applet", busybox[plat])
		}
		slices.Sort(applets)
		return applets, nil
	}
	return nil, fmt.Errorf("cannot list the busybox applets: no -busybox binary runs on this machine: %w", errors.Join(errs...))
}

// layerInfo is a layer and the history line that says what it adds.
type layerInfo struct {
	layer v1.Layer
	what  string
}

func image(layers []layerInfo, arch string, in Inputs, pathEnv, description string) (v1.Image, error) {
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	for _, l := range layers {
		var err error
		img, err = mutate.Append(img, mutate.Addendum{Layer: l.layer, History: v1.History{
			Created: v1.Time{Time: in.Created}, CreatedBy: "scripts/image: " + l.what,
		}})
		if err != nil {
			return nil, fmt.Errorf("append layer: %w", err)
		}
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Created = "linux", arch, v1.Time{Time: in.Created}
	cf.Config.Entrypoint = []string{binaryPath}
	cf.Config.User = fmt.Sprintf("%d:%d", uid, uid)
	cf.Config.WorkingDir = home
	cf.Config.Env = []string{"PATH=" + pathEnv, "HOME=" + home, "SSL_CERT_FILE=" + caPath}
	cf.Config.Labels = map[string]string{
		"org.opencontainers.image.title":       "kimi-run",
		"org.opencontainers.image.description": description,
		"org.opencontainers.image.version":     in.Version,
		"org.opencontainers.image.source":      source,
		"org.opencontainers.image.licenses":    "Apache-2.0",
	}
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return img, nil
}

// entry is one file, directory or symlink of a layer.
type entry struct {
	name   string
	mode   int64
	owner  int
	body   []byte
	isDir  bool
	linkTo string
}

// baseEntries are the static image's only layer, and the agent image's first.
func baseEntries(bin, pem []byte) []entry {
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:%s:/sbin/nologin\n", uid, uid, home)
	group := fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", uid)
	return []entry{
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
}

// busyboxEntries are the agent image's second layer: busybox and a symlink to it for
// every applet, where busybox itself would install it.
func busyboxEntries(bb []byte, applets []string) []entry {
	es := []entry{
		{name: "bin/", mode: 0o755, isDir: true},
		{name: strings.TrimPrefix(busyboxPath, "/"), mode: 0o755, body: bb},
		{name: "sbin/", mode: 0o755, isDir: true},
		{name: "usr/", mode: 0o755, isDir: true},
		{name: "usr/bin/", mode: 0o755, isDir: true},
		{name: "usr/sbin/", mode: 0o755, isDir: true},
	}
	for _, a := range applets {
		// Relative, so it holds wherever the root is (bin/sh -> ../bin/busybox).
		rel := strings.Repeat("../", strings.Count(a, "/")) + strings.TrimPrefix(busyboxPath, "/")
		es = append(es, entry{name: a, mode: 0o777, linkTo: rel})
	}
	return es
}

// layer is a tar of entries in their order, with fixed times and owners.
func layer(entries []entry, when time.Time) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: e.mode, Uid: e.owner, Gid: e.owner, ModTime: when, Format: tar.FormatPAX}
		switch {
		case e.isDir:
			h.Typeflag = tar.TypeDir
		case e.linkTo != "":
			h.Typeflag, h.Linkname = tar.TypeSymlink, e.linkTo
		default:
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
	b := buf.Bytes()
	l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(b)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, fmt.Errorf("layer: %w", err)
	}
	return l, nil
}
