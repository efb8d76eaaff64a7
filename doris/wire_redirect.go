package doris

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// Where a Stream Load is redirected. A Stream Load is a PUT to an FE's
// /api/{db}/{table}/_stream_load; the FE answers 307 with a Location naming
// a BE, chosen round-robin among the BEs that can load
// (LoadAction.selectLocalRedirectBackend), at an address chosen by the
// redirect policy (LoadAction.selectEndpointByRedirectPolicy,
// fe/fe-core/src/main/java/org/apache/doris/httpv2/rest/LoadAction.java
// @35cefb09). A loader that cannot reach that address hangs after the 307
// until its own timeout (measured: the Stream Load CDC sink design,
// "Topology"). StreamLoadRedirect recomputes the address for one BE, so
// doctor can probe exactly what a loader would be sent to.

// The redirect policies: the request's redirect-policy header, else the
// FE's streamload_redirect_policy (Config.java @000d15ca, default "").
const (
	HeaderRedirectPolicy = "redirect-policy"
	PolicyDefault        = ""
	PolicyPublicPrivate  = "public-private"
	PolicyRandomBE       = "random-be"
	PolicyDirect         = "direct"
	PolicyPublic         = "public"
	PolicyPrivate        = "private"
)

// BackendEndpoints is what SHOW BACKENDS says about one BE's addresses.
type BackendEndpoints struct {
	Host     string // Host (older builds: HostName, IP)
	HTTPPort int    // HttpPort: the BE webserver port
	// Public and Private are the Tag column's public_endpoint and
	// private_endpoint ("host:port"), "" when the build or the BE has none.
	Public, Private string
}

// ParseBackendTag reads SHOW BACKENDS' Tag column: a JSON object of strings,
// e.g. {"location" : "default", "public_endpoint" : "11.10.10.10:8010"}.
// An empty or NULL cell has no endpoints.
func ParseBackendTag(tag string) (public, private string, err error) {
	tag = strings.TrimSpace(tag)
	if tag == "" || strings.EqualFold(tag, "NULL") || tag == `\N` {
		return "", "", nil
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(tag), &m); err != nil {
		return "", "", fmt.Errorf("the Tag column is not a JSON object: %w", err)
	}
	str := func(k string) string {
		if s, ok := m[k].(string); ok {
			return strings.TrimSpace(s)
		}
		return ""
	}
	return str("public_endpoint"), str("private_endpoint"), nil
}

// Redirect is where an FE's 307 sends a Stream Load for one BE.
type Redirect struct {
	Host string
	Port int
	// Rule says how the address was chosen, for the doctor's report.
	Rule string
	// Err is set when the FE answers the Stream Load with an error instead
	// of a 307 (LoadAction's LoadException text), Host and Port then empty.
	Err string
}

// Addr is "host:port" ("" with Err).
func (r Redirect) Addr() string {
	if r.Err != "" || r.Host == "" {
		return ""
	}
	return JoinHostPort(r.Host, r.Port)
}

// JoinHostPort is net.JoinHostPort (this package opens no socket and
// imports no net): an IPv6 literal is bracketed.
func JoinHostPort(host string, port int) string {
	if strings.Contains(host, ":") {
		return "[" + host + "]:" + strconv.Itoa(port)
	}
	return host + ":" + strconv.Itoa(port)
}

// splitHostPort is net.SplitHostPort for "host:port" and "[v6]:port".
func splitHostPort(s string) (string, string, error) {
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 || end+1 >= len(s) || s[end+1] != ':' {
			return "", "", errors.New("missing port")
		}
		return s[1:end], s[end+2:], nil
	}
	i := strings.LastIndexByte(s, ':')
	if i < 0 || strings.Count(s, ":") > 1 {
		return "", "", errors.New("missing port")
	}
	return s[:i], s[i+1:], nil
}

// isIP is InetAddressValidator.isValid: an IPv4 or IPv6 literal.
func isIP(host string) (netip.Addr, bool) {
	a, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return a, err == nil && a.Zone() == ""
}

// StreamLoadRedirect mirrors LoadAction.selectEndpointByRedirectPolicy for
// one BE: policy is the redirect-policy header the loader sends, or the
// FE's streamload_redirect_policy when it sends none; reqHost is the host
// part of the Host header of the loader's request (the FE address it uses).
// Builds without Stream Load endpoints redirect to Host:HttpPort, which is
// what the default policy gives a BE with no endpoint.
func StreamLoadRedirect(be BackendEndpoints, policy, reqHost string) Redirect {
	direct := Redirect{Host: be.Host, Port: be.HTTPPort}
	pubHost, pubPort, pubErr := splitEndpoint(be.Public)
	privHost, privPort, privErr := splitEndpoint(be.Private)
	// LoadAction parses both endpoints before it looks at the policy: a
	// malformed one fails every Stream Load to this BE.
	if pubErr != "" {
		return Redirect{Rule: "public_endpoint " + strconv.Quote(be.Public), Err: pubErr}
	}
	if privErr != "" {
		return Redirect{Rule: "private_endpoint " + strconv.Quote(be.Private), Err: privErr}
	}
	hasPub, hasPriv := be.Public != "", be.Private != ""
	public := Redirect{Host: pubHost, Port: pubPort}
	private := Redirect{Host: privHost, Port: privPort}
	reqAddr, ip := isIP(reqHost)
	switch {
	case strings.EqualFold(policy, PolicyDirect), strings.EqualFold(policy, PolicyRandomBE):
		direct.Rule = "policy " + strings.ToLower(policy) + ": Host:HttpPort"
		return direct
	case strings.EqualFold(policy, PolicyPublic):
		if !hasPub {
			return Redirect{Rule: "policy public", Err: "public endpoint is null, please check be public endpoint config"}
		}
		public.Rule = "policy public: Tag public_endpoint"
		return public
	case strings.EqualFold(policy, PolicyPrivate):
		if !hasPriv {
			return Redirect{Rule: "policy private", Err: "private endpoint is null, please check be private endpoint config"}
		}
		private.Rule = "policy private: Tag private_endpoint"
		return private
	case strings.EqualFold(policy, PolicyPublicPrivate):
		if ip {
			switch {
			case siteLocal(reqAddr) && hasPriv:
				private.Rule = "policy public-private, site-local request host: Tag private_endpoint"
				return private
			case hasPub:
				public.Rule = "policy public-private, request host not site-local: Tag public_endpoint"
				return public
			}
			return Redirect{Rule: "policy public-private", Err: "Invalid header host: " + reqHost}
		}
		switch {
		case hasPub && strings.Contains(strings.ToLower(reqHost), "public"):
			public.Rule = `policy public-private, request host name holds "public": Tag public_endpoint`
			return public
		case hasPriv:
			private.Rule = "policy public-private, request host name: Tag private_endpoint"
			return private
		}
		return Redirect{Rule: "policy public-private", Err: "Invalid header host: " + reqHost}
	}
	// The default policy (none, or a value LoadAction does not know).
	switch {
	case ip && hasPub && strings.EqualFold(strings.Trim(reqHost, "[]"), pubHost):
		public.Rule = "default policy, request host is the public endpoint's: Tag public_endpoint"
		return public
	case hasPriv:
		// "use request host here, because private endpoint may be unknown
		// for cloud mode": the loader's own FE address with the private
		// endpoint's port.
		return Redirect{Host: strings.Trim(reqHost, "[]"), Port: privPort,
			Rule: "default policy: the request's host with Tag private_endpoint's port"}
	}
	direct.Rule = "default policy, no endpoint: Host:HttpPort"
	return direct
}

// splitEndpoint mirrors LoadAction.splitHostAndPort: whitespace removed,
// HostAndPort with a port in 1..65535; the failure is the FE's own text.
func splitEndpoint(ep string) (string, int, string) {
	ep = strings.Join(strings.Fields(ep), "")
	if ep == "" {
		return "", 0, ""
	}
	h, p, err := splitHostPort(ep)
	if err != nil {
		return "", 0, "Invalid endpoint: " + ep
	}
	port, err := strconv.Atoi(p)
	if err != nil {
		return "", 0, "Invalid endpoint: " + ep
	}
	if port <= 0 || port >= 65536 {
		return "", 0, "Invalid endpoint port: " + strconv.Itoa(port)
	}
	return h, port, ""
}

// siteLocal is Java's InetAddress.isSiteLocalAddress: 10/8, 172.16/12,
// 192.168/16, and IPv6 fec0::/10 (not the unique-local fc00::/7).
func siteLocal(a netip.Addr) bool {
	a = a.Unmap()
	if a.Is4() {
		b := a.As4()
		return b[0] == 10 || b[0] == 172 && b[1]&0xf0 == 16 || b[0] == 192 && b[1] == 168
	}
	b := a.As16()
	return a.Is6() && b[0] == 0xfe && b[1]&0xc0 == 0xc0
}
