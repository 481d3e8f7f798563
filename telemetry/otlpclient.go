package telemetry

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/kimi-run/kimi-run/internal/infile"
)

// client sends OTLP requests of one signal over HTTP/protobuf or gRPC (unary calls over
// net/http's HTTP/2, cleartext for http:// endpoints), configured by the standard
// OTEL_EXPORTER_OTLP_* variables, the signal's own winning over the general ones.
type client struct {
	url     string
	grpc    bool
	headers http.Header
	gzip    bool
	timeout time.Duration
	http    *http.Client
}

// The paths of the two signals, for HTTP and for gRPC.
var signalPaths = map[string][2]string{
	"TRACES":  {"/v1/traces", "/opentelemetry.proto.collector.trace.v1.TraceService/Export"},
	"METRICS": {"/v1/metrics", "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export"},
}

func newClient(getenv func(string) string, signal string) (*client, []string, error) {
	setting := func(name string) string {
		if v := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_" + signal + "_" + name)); v != "" {
			return v
		}
		return strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_" + name))
	}
	proto, warnings := protocol(getenv, signal)
	c := &client{grpc: proto == "grpc", headers: http.Header{}, timeout: 10 * time.Second}
	paths := signalPaths[signal]

	endpoint, own := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_"+signal+"_ENDPOINT")), true
	if endpoint == "" {
		endpoint, own = strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_ENDPOINT")), false
	}
	if !strings.Contains(endpoint, "://") {
		// host:port, as gRPC endpoints are often written.
		scheme := "https://"
		if strings.EqualFold(setting("INSECURE"), "true") {
			scheme = "http://"
		}
		endpoint = scheme + endpoint
	}
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, warnings, fmt.Errorf("telemetry: OTLP endpoint %q is not an http(s) URL", endpoint)
	}
	switch {
	case c.grpc:
		u.Path = paths[1] // a gRPC endpoint names the host; the service path is fixed
	case !own:
		u.Path = strings.TrimRight(u.Path, "/") + paths[0]
	}
	c.url = u.String()

	for _, kv := range strings.Split(setting("HEADERS"), ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			continue
		}
		if dv, err := url.PathUnescape(strings.TrimSpace(v)); err == nil {
			v = dv
		}
		c.headers.Set(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	switch comp := setting("COMPRESSION"); comp {
	case "gzip":
		c.gzip = true
	case "", "none":
	default:
		warnings = append(warnings, fmt.Sprintf("telemetry: OTLP compression %q is not supported (gzip or none); sending uncompressed", comp))
	}
	if ms, err := strconv.Atoi(setting("TIMEOUT")); err == nil && ms > 0 {
		c.timeout = time.Duration(ms) * time.Millisecond
	}
	tlsConf, err := tlsConfig(setting("CERTIFICATE"), setting("CLIENT_CERTIFICATE"), setting("CLIENT_KEY"))
	if err != nil {
		return nil, warnings, err
	}
	tr := &http.Transport{Proxy: http.ProxyFromEnvironment, TLSClientConfig: tlsConf, ForceAttemptHTTP2: true}
	if c.grpc {
		tr.Protocols = new(http.Protocols)
		if u.Scheme == "http" {
			tr.Protocols.SetUnencryptedHTTP2(true)
		} else {
			tr.Protocols.SetHTTP2(true)
		}
	}
	c.http = &http.Client{Transport: tr}
	return c, warnings, nil
}

// tlsConfig reads the CA and client certificate files; nil when none is set.
func tlsConfig(ca, cert, key string) (*tls.Config, error) {
	if ca == "" && cert == "" {
		return nil, nil
	}
	conf := &tls.Config{MinVersion: tls.VersionTLS12}
	if ca != "" {
		pem, err := infile.Read(context.Background(), ca, infile.Certificate)
		if err != nil {
			return nil, fmt.Errorf("telemetry: OTLP certificate: %w", err)
		}
		conf.RootCAs = x509.NewCertPool()
		if !conf.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("telemetry: OTLP certificate %s holds no PEM certificate", ca)
		}
	}
	if cert != "" {
		certPEM, err := infile.Read(context.Background(), cert, infile.Certificate)
		var keyPEM []byte
		if err == nil {
			keyPEM, err = infile.Read(context.Background(), key, infile.Certificate)
		}
		var pair tls.Certificate
		if err == nil {
			pair, err = tls.X509KeyPair(certPEM, keyPEM)
		}
		if err != nil {
			return nil, fmt.Errorf("telemetry: OTLP client certificate: %w", err)
		}
		conf.Certificates = []tls.Certificate{pair}
	}
	return conf, nil
}

// send delivers one encoded request within the client's timeout.
func (c *client) send(ctx context.Context, body []byte) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	if c.grpc {
		// A gRPC message: not compressed (1 byte), its length (4 bytes), the message.
		framed := make([]byte, 5, 5+len(body))
		binary.BigEndian.PutUint32(framed[1:], uint32(len(body)))
		body = append(framed, body...)
	} else if c.gzip {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(body)
		zw.Close()
		body = z.Bytes()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	for k, v := range c.headers {
		req.Header[k] = v
	}
	if c.grpc {
		req.Header.Set("Content-Type", "application/grpc")
		req.Header.Set("TE", "trailers")
	} else {
		req.Header.Set("Content-Type", "application/x-protobuf")
		if c.gzip {
			req.Header.Set("Content-Encoding", "gzip")
		}
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s: HTTP %d", c.url, resp.StatusCode)
	}
	if c.grpc {
		if err != nil {
			return err
		}
		st := resp.Trailer.Get("Grpc-Status")
		if st == "" {
			st = resp.Header.Get("Grpc-Status") // a trailers-only answer
		}
		if st != "0" {
			return fmt.Errorf("%s: gRPC status %s %s", c.url, st, resp.Trailer.Get("Grpc-Message"))
		}
	}
	return nil
}

func (c *client) close() { c.http.CloseIdleConnections() }
