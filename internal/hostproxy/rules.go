package hostproxy

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// Rule is one --allow-host entry: a host name (a leading "*." allows every subdomain of
// the rest, not the name itself), "localhost" or an IP address, and a port (0: 80 and 443).
type Rule struct {
	Host string // lower case, no trailing dot, no brackets
	Port int
	// Wildcard: Host is the domain whose subdomains are allowed.
	Wildcard bool
	// Addr is Host as an address, when it is one.
	Addr netip.Addr
}

// defaultPorts are the ports a rule without one allows: HTTP and HTTPS.
var defaultPorts = []int{80, 443}

// ParseRules reads --allow-host entries: HOST, HOST:PORT, *.DOMAIN[:PORT], an IPv4
// address, or an IPv6 one in brackets when it has a port ([::1]:8080).
func ParseRules(entries []string) ([]Rule, error) {
	var out []Rule
	for _, e := range entries {
		for _, part := range strings.Split(e, ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			r, err := parseRule(part)
			if err != nil {
				return nil, fmt.Errorf("%q: %w", part, err)
			}
			out = append(out, r)
		}
	}
	return out, nil
}

func parseRule(s string) (Rule, error) {
	if strings.Contains(s, "://") || strings.ContainsAny(s, "/?#@ ") {
		return Rule{}, fmt.Errorf("want HOST or HOST:PORT, not a URL")
	}
	host, port := s, 0
	if h, p, err := net.SplitHostPort(s); err == nil {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return Rule{}, fmt.Errorf("port %q: want 1 to 65535", p)
		}
		host, port = h, n
	} else if strings.Count(s, ":") == 1 {
		return Rule{}, err
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	r := Rule{Host: host, Port: port}
	if a, err := netip.ParseAddr(host); err == nil {
		r.Addr = a.Unmap()
		return r, nil
	}
	if rest, ok := strings.CutPrefix(host, "*."); ok {
		r.Host, r.Wildcard = rest, true
	}
	if !validName(r.Host) {
		return Rule{}, fmt.Errorf("%q is not a host name", host)
	}
	return r, nil
}

// validName accepts DNS names of letters, digits, '-' and '_' in dot-separated labels.
func validName(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

// String writes the rule as it would be given.
func (r Rule) String() string {
	h := r.Host
	if r.Wildcard {
		h = "*." + h
	}
	if r.Port == 0 {
		return h
	}
	return net.JoinHostPort(h, strconv.Itoa(r.Port))
}

// matches reports whether the rule allows host (lower case, no trailing dot) on port.
func (r Rule) matches(host string, port int) bool {
	if r.Port == 0 {
		if port != defaultPorts[0] && port != defaultPorts[1] {
			return false
		}
	} else if r.Port != port {
		return false
	}
	if r.Addr.IsValid() {
		a, err := netip.ParseAddr(host)
		return err == nil && a.Unmap() == r.Addr
	}
	if r.Wildcard {
		return strings.HasSuffix(host, "."+r.Host)
	}
	return host == r.Host
}

// literal says the rule names its address itself (an IP, or localhost): the user chose
// that address, local or not.
func (r Rule) literal() bool { return r.Addr.IsValid() || r.Host == "localhost" }
