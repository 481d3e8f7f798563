package main

import (
	"archive/tar"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"debug/elf"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"maps"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// The images are built the way the release builds them, from a real static build of
// kimi-run and the machine's static busybox, into an OCI layout, then read back as a
// registry client or a container runtime would: go-containerregistry, skopeo and umoci
// open the layout, and the agent's Shell tool runs inside the unpacked agent image.

// requireTools: CI installs skopeo, umoci and busybox-static and sets this, so that the
// tests that need them fail there instead of skipping.
var requireTools = os.Getenv("KIMI_RUN_REQUIRE_IMAGE_TOOLS") != ""

func need(t *testing.T, tool string) string {
	t.Helper()
	p, err := exec.LookPath(tool)
	if err != nil {
		if requireTools {
			t.Fatalf("%s is not installed", tool)
		}
		t.Skipf("%s is not installed", tool)
	}
	return p
}

var (
	buildOnce sync.Once
	built     string
	buildErr  error
)

// kimiRun compiles kimi-run as the release does (static, trimmed, version stamped), once.
func kimiRun(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "kimi-run-image")
		if err != nil {
			buildErr = err
			return
		}
		built = filepath.Join(dir, "kimi-run")
		// kimi-run is the module at the repository's root; this one (scripts/) is apart.
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w -X main.version=9.8.7 -X main.commit=abc1234 -X main.date=2026-01-02", "-o", built, ".")
		cmd.Dir = filepath.Join("..", "..")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
		if b, err := cmd.CombinedOutput(); err != nil {
			buildErr = errors.New("go build: " + err.Error() + "\n" + string(b))
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return built
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built != "" {
		os.RemoveAll(filepath.Dir(built))
	}
	os.Exit(code)
}

// staticBusybox is the machine's busybox when it is static (Debian's busybox-static).
func staticBusybox(t *testing.T) string {
	t.Helper()
	p := need(t, "busybox")
	if !static(t, p) {
		if requireTools {
			t.Fatalf("%s is not static: install busybox-static", p)
		}
		t.Skipf("%s is not static", p)
	}
	return p
}

// static reports whether an ELF file asks for no dynamic loader (a FROM-scratch image has none).
func static(t *testing.T, path string) bool {
	t.Helper()
	ef, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	for _, p := range ef.Progs {
		if p.Type == elf.PT_INTERP {
			return false
		}
	}
	return true
}

// caBundle writes a PEM bundle of one self-signed root, so the test needs no system file.
func caBundle(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kimi-run test root"},
		NotBefore: time.Unix(0, 0), NotAfter: time.Unix(1<<33, 0), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// hostLayout builds both images for this machine's platform into an OCI layout tagged
// 9.8.7 (agent) and 9.8.7-static.
func hostLayout(t *testing.T) (dir, ca string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("builds and runs linux images")
	}
	plat := "linux/" + runtime.GOARCH
	ca, dir = caBundle(t), filepath.Join(t.TempDir(), "oci")
	err := run(options{bins: binaries{plat: kimiRun(t)}, busybox: binaries{plat: staticBusybox(t)},
		version: "9.8.7", ca: ca, oci: dir})
	if err != nil {
		t.Fatal(err)
	}
	return dir, ca
}

type file struct {
	mode     int64
	uid, gid int
	typ      byte
	body     []byte
	link     string
}

func TestImagesInOCILayout(t *testing.T) {
	t.Parallel()
	dir, ca := hostLayout(t)
	lp, err := layout.FromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	top, err := lp.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	im, err := top.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	// index.json: one image index per tag, named as OCI tools look tags up (issue 29 #3:
	// two bare images there made skopeo and umoci refuse the layout).
	tags := map[string]v1.Hash{}
	for _, d := range im.Manifests {
		if d.MediaType != "application/vnd.oci.image.index.v1+json" {
			t.Errorf("index.json lists a %s; want image indexes only", d.MediaType)
		}
		tags[d.Annotations[refName]] = d.Digest
	}
	if got := slices.Sorted(maps.Keys(tags)); !slices.Equal(got, []string{"9.8.7", "9.8.7-static"}) {
		t.Fatalf("layout tags %q", got)
	}

	variant := func(tag string) (v1.Image, *v1.ConfigFile) {
		idx, err := top.ImageIndex(tags[tag])
		if err != nil {
			t.Fatal(err)
		}
		m, err := idx.IndexManifest()
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Manifests) != 1 || m.Manifests[0].Platform == nil || m.Manifests[0].Platform.Architecture != runtime.GOARCH {
			t.Fatalf("%s: manifests %+v, want one for linux/%s", tag, m.Manifests, runtime.GOARCH)
		}
		img, err := idx.Image(m.Manifests[0].Digest)
		if err != nil {
			t.Fatal(err)
		}
		cf, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(cf.Config.Entrypoint, []string{"/usr/local/bin/kimi-run"}) || len(cf.Config.Cmd) != 0 {
			t.Errorf("%s: entrypoint %q cmd %q, want the binary alone (the container's args are kimi-run's)", tag, cf.Config.Entrypoint, cf.Config.Cmd)
		}
		if cf.Config.User != "65532:65532" {
			t.Errorf("%s: user %q, want the non-root 65532:65532", tag, cf.Config.User)
		}
		for _, want := range []string{"SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt", "HOME=/home/nonroot"} {
			if !slices.Contains(cf.Config.Env, want) {
				t.Errorf("%s: env %q lacks %s", tag, cf.Config.Env, want)
			}
		}
		if cf.Config.Labels["org.opencontainers.image.version"] != "9.8.7" || cf.Config.Labels["org.opencontainers.image.licenses"] != "Apache-2.0" {
			t.Errorf("%s: labels %v", tag, cf.Config.Labels)
		}
		return img, cf
	}

	// The static image: exactly the files it is meant to hold, owned as meant.
	img, cf := variant("9.8.7-static")
	if !slices.Contains(cf.Config.Env, "PATH=/usr/local/bin") {
		t.Errorf("static: env %q", cf.Config.Env)
	}
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("static: %d layers, %v: want one", len(layers), err)
	}
	files := readLayer(t, layers[0])
	want := []string{"etc/", "etc/group", "etc/passwd", "etc/ssl/", "etc/ssl/certs/", "etc/ssl/certs/ca-certificates.crt",
		"home/", "home/nonroot/", "tmp/", "usr/", "usr/local/", "usr/local/bin/", "usr/local/bin/kimi-run"}
	if got := slices.Sorted(maps.Keys(files)); !slices.Equal(got, want) {
		t.Errorf("the static layer holds %q, want %q", got, want)
	}
	if h := files["home/nonroot/"]; h.uid != 65532 || h.gid != 65532 {
		t.Errorf("home owned by %d:%d, want 65532", h.uid, h.gid)
	}
	if m := files["tmp/"].mode; m != 0o1777 {
		t.Errorf("/tmp mode %o, want 1777", m)
	}
	if !strings.Contains(string(files["etc/passwd"].body), "nonroot:x:65532:65532:") {
		t.Errorf("/etc/passwd does not name user 65532:\n%s", files["etc/passwd"].body)
	}
	caWant, _ := os.ReadFile(ca)
	if string(files["etc/ssl/certs/ca-certificates.crt"].body) != string(caWant) {
		t.Errorf("the CA bundle in the image differs from the one given")
	}
	kb := files["usr/local/bin/kimi-run"]
	if kb.mode&0o111 == 0 || kb.uid != 0 {
		t.Errorf("binary mode %o owner %d: want executable, owned by root (the user cannot replace it)", kb.mode, kb.uid)
	}
	// The binary in the layer is static and is the build that went in: run it.
	extracted := filepath.Join(t.TempDir(), "kimi-run")
	if err := os.WriteFile(extracted, kb.body, 0o755); err != nil {
		t.Fatal(err)
	}
	if !static(t, extracted) {
		t.Errorf("the binary asks for a dynamic loader; a FROM-scratch image has none")
	}
	out, err := exec.Command(extracted, "--version").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "kimi-run 9.8.7 (abc1234, 2026-01-02)" {
		t.Errorf("the image's kimi-run --version: %q, %v", out, err)
	}

	// The agent image: the same first layer, then busybox and its applets on PATH.
	img, cf = variant("9.8.7")
	if !slices.Contains(cf.Config.Env, "PATH="+agentPATH) {
		t.Errorf("agent: env %q", cf.Config.Env)
	}
	agentLayers, err := img.Layers()
	if err != nil || len(agentLayers) != 2 {
		t.Fatalf("agent: %d layers, %v: want two", len(agentLayers), err)
	}
	d0, _ := agentLayers[0].Digest()
	ds, _ := layers[0].Digest()
	if d0 != ds {
		t.Errorf("the agent image does not share the static image's layer (%s, %s)", d0, ds)
	}
	tools := readLayer(t, agentLayers[1])
	bb, _ := os.ReadFile(staticBusybox(t))
	if string(tools["bin/busybox"].body) != string(bb) || tools["bin/busybox"].mode&0o111 == 0 {
		t.Errorf("bin/busybox is not the busybox given, executable")
	}
	for _, applet := range []string{"bin/sh", "bin/ls", "bin/grep", "bin/sed", "usr/bin/awk", "usr/bin/find", "usr/bin/diff"} {
		f, ok := tools[applet]
		if !ok || f.typ != tar.TypeSymlink || filepath.Clean(filepath.Join(filepath.Dir(applet), f.link)) != "bin/busybox" {
			t.Errorf("%s: %+v, want a symlink to /bin/busybox", applet, f.link)
		}
	}

	// The same inputs give the same digests (no build time, no map order in them).
	again := filepath.Join(t.TempDir(), "oci")
	if err := run(options{bins: binaries{"linux/" + runtime.GOARCH: kimiRun(t)}, busybox: binaries{"linux/" + runtime.GOARCH: staticBusybox(t)},
		version: "9.8.7", ca: ca, oci: again}); err != nil {
		t.Fatal(err)
	}
	b1, _ := os.ReadFile(filepath.Join(dir, "index.json"))
	b2, _ := os.ReadFile(filepath.Join(again, "index.json"))
	if string(b1) != string(b2) {
		t.Errorf("two builds of the same inputs differ:\n%s\n%s", b1, b2)
	}
}

// TestLayoutOpensInSkopeoAndUmoci: the OCI tools open the layout as it is, by tag, the
// multi-platform one too (issue 29 #3: "more than one image in oci, choose an image").
func TestLayoutOpensInSkopeoAndUmoci(t *testing.T) {
	t.Parallel()
	skopeo := need(t, "skopeo")
	dir, ca := hostLayout(t)
	for _, tag := range []string{"9.8.7", "9.8.7-static"} {
		out := command(t, skopeo, "inspect", "--config", "oci:"+dir+":"+tag)
		var cf v1.ConfigFile
		if err := json.Unmarshal([]byte(out), &cf); err != nil || cf.Architecture != runtime.GOARCH || cf.Config.Labels["org.opencontainers.image.version"] != "9.8.7" {
			t.Errorf("skopeo inspect %s: %v\n%s", tag, err, out)
		}
		command(t, skopeo, "copy", "oci:"+dir+":"+tag, "dir:"+t.TempDir())
	}

	// Both release platforms in one layout (the same binaries stand in for arm64's: the
	// structure is what is checked), each chosen by skopeo.
	multi := filepath.Join(t.TempDir(), "oci")
	bin, bb := kimiRun(t), staticBusybox(t)
	if err := run(options{bins: binaries{"linux/amd64": bin, "linux/arm64": bin}, busybox: binaries{"linux/amd64": bb, "linux/arm64": bb},
		version: "9.8.7", ca: ca, oci: multi, tags: []string{"9.8.7", "latest"}}); err != nil {
		t.Fatal(err)
	}
	for _, arch := range []string{"amd64", "arm64"} {
		for _, tag := range []string{"latest", "latest-static", "9.8.7"} {
			out := command(t, skopeo, "--override-os", "linux", "--override-arch", arch, "inspect", "--config", "oci:"+multi+":"+tag)
			if !strings.Contains(out, `"architecture": "`+arch+`"`) && !strings.Contains(out, `"architecture":"`+arch+`"`) {
				t.Errorf("skopeo --override-arch %s inspect %s:\n%s", arch, tag, out)
			}
		}
	}

	umoci := need(t, "umoci")
	for _, tag := range []string{"9.8.7", "9.8.7-static"} {
		bundle := filepath.Join(t.TempDir(), "bundle")
		command(t, umoci, "unpack", "--rootless", "--image", dir+":"+tag, bundle)
		_, err := os.Lstat(filepath.Join(bundle, "rootfs", "bin", "sh"))
		if hasShell := err == nil; hasShell != (tag == "9.8.7") {
			t.Errorf("umoci unpacked %s: /bin/sh present %v", tag, hasShell)
		}
		if _, err := os.Stat(filepath.Join(bundle, "rootfs", "usr", "local", "bin", "kimi-run")); err != nil {
			t.Errorf("umoci unpacked %s without kimi-run: %v", tag, err)
		}
	}
}

func command(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %q: %v\n%s", name, args, err, out)
	}
	return string(out)
}

func readLayer(t *testing.T, l v1.Layer) map[string]file {
	t.Helper()
	rc, err := l.Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	files := map[string]file{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(tr)
		files[h.Name] = file{mode: h.Mode, uid: h.Uid, gid: h.Gid, typ: h.Typeflag, body: body, link: h.Linkname}
	}
	return files
}

func TestBinariesFromGoreleaserDist(t *testing.T) {
	t.Parallel()
	dist := t.TempDir()
	os.WriteFile(filepath.Join(dist, "artifacts.json"), []byte(`[
	 {"name":"kimi-run","path":"dist/kimi-run_linux_amd64_v1/kimi-run","goos":"linux","goarch":"amd64","type":"Binary"},
	 {"name":"kimi-run","path":"dist/kimi-run_linux_arm64_v8.0/kimi-run","goos":"linux","goarch":"arm64","type":"Binary"},
	 {"name":"kimi-run","path":"dist/kimi-run_darwin_arm64_v8.0/kimi-run","goos":"darwin","goarch":"arm64","type":"Binary"},
	 {"name":"kimi-run_1.0.0_linux_amd64.tar.gz","path":"dist/kimi-run_1.0.0_linux_amd64.tar.gz","goos":"linux","goarch":"amd64","type":"Archive"}
	]`), 0o644)
	got, err := fromDist(dist)
	if err != nil {
		t.Fatal(err)
	}
	// Paths relative to the project (the directory holding dist), wherever this runs.
	project := filepath.Dir(dist)
	want := binaries{"linux/amd64": filepath.Join(project, "dist/kimi-run_linux_amd64_v1/kimi-run"), "linux/arm64": filepath.Join(project, "dist/kimi-run_linux_arm64_v8.0/kimi-run")}
	if got.String() != want.String() {
		t.Errorf("fromDist = %v, want %v", got, want)
	}
	if err := run(options{bins: binaries{}, busybox: binaries{}, version: "1", ca: caBundle(t), oci: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "no binary") {
		t.Errorf("no binaries: %v", err)
	}
	err = run(options{bins: binaries{"linux/amd64": "x", "linux/arm64": "y"}, busybox: binaries{"linux/amd64": "z"}, version: "1", ca: caBundle(t), oci: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "no -busybox for linux/arm64") {
		t.Errorf("busybox for one platform of two: %v", err)
	}
}
