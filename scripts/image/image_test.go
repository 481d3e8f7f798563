package main

import (
	"archive/tar"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"debug/elf"
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
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// The image is built the way the release builds it, from a real static build of kimi-run,
// into an OCI layout, then read back and inspected offline as a registry client or a
// container runtime would: config, layer contents, and the binary run from the layer.

// buildBinary compiles kimi-run as the release does (static, trimmed, version stamped).
func buildBinary(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "kimi-run")
	// kimi-run is the module at the repository's root; this one (scripts/) is apart.
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w -X main.version=9.8.7 -X main.commit=abc1234 -X main.date=2026-01-02", "-o", out, ".")
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	return out
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

type entry struct {
	mode     int64
	uid, gid int
	typ      byte
	body     []byte
}

func TestImageInOCILayout(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("runs the linux binary it puts in the image")
	}
	bin, ca := buildBinary(t), caBundle(t)
	dir := filepath.Join(t.TempDir(), "oci")
	plat := "linux/" + runtime.GOARCH
	if err := run(binaries{plat: bin}, "", "9.8.7", ca, dir, nil); err != nil {
		t.Fatal(err)
	}

	// Read it back as any OCI client would.
	lp, err := layout.FromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := lp.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Manifests) != 1 || im.Manifests[0].Platform == nil ||
		im.Manifests[0].Platform.OS != "linux" || im.Manifests[0].Platform.Architecture != runtime.GOARCH {
		t.Fatalf("index manifests %+v, want one for %s", im.Manifests, plat)
	}
	img, err := idx.Image(im.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cf.Config.Entrypoint, []string{"/usr/local/bin/kimi-run"}) || len(cf.Config.Cmd) != 0 {
		t.Errorf("entrypoint %q cmd %q, want the binary alone (the container's args are kimi-run's)", cf.Config.Entrypoint, cf.Config.Cmd)
	}
	if cf.Config.User != "65532:65532" {
		t.Errorf("user %q, want the non-root 65532:65532", cf.Config.User)
	}
	for _, want := range []string{"SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt", "HOME=/home/nonroot"} {
		if !slices.Contains(cf.Config.Env, want) {
			t.Errorf("env %q lacks %s", cf.Config.Env, want)
		}
	}
	if cf.Config.Labels["org.opencontainers.image.version"] != "9.8.7" || cf.Config.Labels["org.opencontainers.image.licenses"] != "Apache-2.0" {
		t.Errorf("labels %v", cf.Config.Labels)
	}

	// The layer: exactly the files the image is meant to hold, owned as meant.
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("layers %d, %v: want one", len(layers), err)
	}
	files := readLayer(t, layers[0])
	want := []string{"etc/", "etc/group", "etc/passwd", "etc/ssl/", "etc/ssl/certs/", "etc/ssl/certs/ca-certificates.crt",
		"home/", "home/nonroot/", "tmp/", "usr/", "usr/local/", "usr/local/bin/", "usr/local/bin/kimi-run"}
	if got := slices.Sorted(maps.Keys(files)); !slices.Equal(got, want) {
		t.Errorf("layer holds %q, want %q", got, want)
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
	ef, err := elf.Open(extracted)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ef.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("the binary asks for a dynamic loader; a FROM-scratch image has none")
		}
	}
	ef.Close()
	out, err := exec.Command(extracted, "--version").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "kimi-run 9.8.7 (abc1234, 2026-01-02)" {
		t.Errorf("the image's kimi-run --version: %q, %v", out, err)
	}

	// The same inputs give the same digest (no build time, no map order in it).
	idx2, err := Build(binaries{plat: bin}, "9.8.7", ca, created())
	if err != nil {
		t.Fatal(err)
	}
	d1, _ := idx.Digest()
	d2, _ := idx2.Digest()
	if d1 != d2 {
		t.Errorf("two builds of the same inputs: %s and %s", d1, d2)
	}
}

type layerReader interface {
	Uncompressed() (io.ReadCloser, error)
}

func readLayer(t *testing.T, l layerReader) map[string]entry {
	t.Helper()
	rc, err := l.Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	files := map[string]entry{}
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
		files[h.Name] = entry{mode: h.Mode, uid: h.Uid, gid: h.Gid, typ: h.Typeflag, body: body}
	}
	return files
}

func TestBinariesFromGoreleaserDist(t *testing.T) {
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
	if err := run(binaries{}, "", "1", caBundle(t), "", nil); err == nil || !strings.Contains(err.Error(), "no binary") {
		t.Errorf("no binaries: %v", err)
	}
}
