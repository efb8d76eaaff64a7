package doris

import (
	"strings"
	"testing"
)

// TestStreamLoadRedirect holds StreamLoadRedirect to
// LoadAction.selectEndpointByRedirectPolicy, with the vectors of the
// regression suite test_stream_load_endpoint (BE 1: public
// 11.10.10.10:8010, private 10.10.10.9:8020): public and private name the
// endpoints, direct the BE's own address, and the default policy the
// request's host with the private endpoint's port.
func TestStreamLoadRedirect(t *testing.T) {
	be := BackendEndpoints{Host: "172.20.0.3", HTTPPort: 8040, Public: "11.10.10.10:8010", Private: "10.10.10.9:8020"}
	bare := BackendEndpoints{Host: "172.20.0.3", HTTPPort: 8040}
	for _, tc := range []struct {
		name    string
		be      BackendEndpoints
		policy  string
		reqHost string
		want    string // host:port, or "error: <text>"
	}{
		{"public", be, "public", "172.20.0.2", "11.10.10.10:8010"},
		{"private", be, "private", "172.20.0.2", "10.10.10.9:8020"},
		{"direct", be, "direct", "172.20.0.2", "172.20.0.3:8040"},
		{"random-be", be, "random-be", "172.20.0.2", "172.20.0.3:8040"},
		{"case-insensitive", be, "PUBLIC", "172.20.0.2", "11.10.10.10:8010"},
		{"default: request host + private port", be, "", "172.20.0.2", "172.20.0.2:8020"},
		{"default: request host is the public endpoint's", be, "", "11.10.10.10", "11.10.10.10:8010"},
		{"default: a name is never the public endpoint", BackendEndpoints{Host: "b", HTTPPort: 8040, Public: "lb.example:8010"}, "", "lb.example", "b:8040"},
		{"default without endpoints", bare, "", "fe.example", "172.20.0.3:8040"},
		{"unknown policy is the default", be, "publik", "fe.example", "fe.example:8020"},
		{"public without one", bare, "public", "x", "error: public endpoint is null, please check be public endpoint config"},
		{"private without one", bare, "private", "x", "error: private endpoint is null, please check be private endpoint config"},
		{"public-private, site-local IP", be, "public-private", "192.168.1.7", "10.10.10.9:8020"},
		{"public-private, public IP", be, "public-private", "8.8.8.8", "11.10.10.10:8010"},
		{"public-private, name with public", be, "public-private", "doris-public.example", "11.10.10.10:8010"},
		{"public-private, other name", be, "public-private", "doris.example", "10.10.10.9:8020"},
		{"public-private, nothing fits", bare, "public-private", "doris.example", "error: Invalid header host: doris.example"},
		{"malformed endpoint fails every policy", BackendEndpoints{Host: "b", HTTPPort: 8040, Public: "no-port"}, "direct", "x", "error: Invalid endpoint: no-port"},
		{"endpoint port out of range", BackendEndpoints{Host: "b", HTTPPort: 8040, Private: "h:70000"}, "", "x", "error: Invalid endpoint port: 70000"},
		{"IPv6 endpoint", BackendEndpoints{Host: "b", HTTPPort: 8040, Public: "[2001:db8::1]:8010"}, "public", "x", "[2001:db8::1]:8010"},
		{"site-local v6 fec0::/10", BackendEndpoints{Host: "b", HTTPPort: 8040, Public: "p:1", Private: "q:2"}, "public-private", "fec0::1", "q:2"},
		{"unique-local v6 is not site-local", BackendEndpoints{Host: "b", HTTPPort: 8040, Public: "p:1", Private: "q:2"}, "public-private", "fd00::1", "p:1"},
	} {
		got := StreamLoadRedirect(tc.be, tc.policy, tc.reqHost)
		s := got.Addr()
		if got.Err != "" {
			s = "error: " + got.Err
		}
		if s != tc.want {
			t.Errorf("%s: got %q (%s), want %q", tc.name, s, got.Rule, tc.want)
		}
		if got.Err == "" && got.Rule == "" {
			t.Errorf("%s: no rule", tc.name)
		}
	}
}

func TestParseBackendTag(t *testing.T) {
	pub, priv, err := ParseBackendTag(`{"location" : "default", "public_endpoint" : "11.10.10.10:8010", "private_endpoint": "10.10.10.9:8020"}`)
	if err != nil || pub != "11.10.10.10:8010" || priv != "10.10.10.9:8020" {
		t.Errorf("got %q %q %v", pub, priv, err)
	}
	for _, tag := range []string{"", "NULL", `\N`, `{"location" : "default"}`} {
		if pub, priv, err := ParseBackendTag(tag); pub != "" || priv != "" || err != nil {
			t.Errorf("%q: got %q %q %v", tag, pub, priv, err)
		}
	}
	if _, _, err := ParseBackendTag("location=default"); err == nil {
		t.Errorf("a Tag that is not JSON parsed")
	}
}

// TestForbiddenEndpoints: the mutating endpoints are found however the path
// is spelled, and no endpoint of the contract is one of them.
func TestForbiddenEndpoints(t *testing.T) {
	for _, p := range []string{"/api/_set_config", "/API/_SET_CONFIG", "//api//_set_config", "/api/./_set_config",
		"/metrics/../api/_set_config", "/api/_set_config/", "/api/update_config", "/api/reset_rpc_channel/a:1",
		"/rest/v2/manager/node/set_config/fe", "/api/demo/t/_stream_load", "/api/file_cache"} {
		if _, ok := Forbidden(p); !ok {
			t.Errorf("%s is not refused", p)
		}
	}
	for _, p := range []string{"/api/_set_configuration", "/api/show_config", "/metrics", "/api/tso", "/api/health",
		"/rest/v1/config/fe/", "/api/demo/get_load_state"} {
		if f, ok := Forbidden(p); ok {
			t.Errorf("%s is refused as %s", p, f.Path)
		}
	}
	for _, r := range All() {
		if r.Kind != HTTP {
			continue
		}
		e := r.Name
		if f, ok := Forbidden(strings.ReplaceAll(e, "{db}", "x")); ok {
			t.Errorf("the contract's endpoint %s is forbidden (%s)", e, f.Path)
		}
		if _, ok := Endpoint(strings.ReplaceAll(e, "{db}", "x")); !ok {
			t.Errorf("the contract's endpoint %s is not found by Endpoint", e)
		}
	}
	if _, ok := Endpoint("/api/_set_config"); ok {
		t.Errorf("/api/_set_config is an endpoint of the contract")
	}
}

func TestConfigKeys(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range ConfigKeys() {
		id := string(k.Node) + " " + k.Name
		if seen[id] {
			t.Errorf("%s listed twice", id)
		}
		seen[id] = true
		if k.Declared == "" || k.Why == "" || k.Type == "" || k.Avail == "" {
			t.Errorf("%s: declaration, why, type and builds are all needed: %+v", id, k)
		}
		if strings.HasPrefix(k.Name, ExperimentalPrefix) {
			t.Errorf("%s: the name is the bare one", id)
		}
		shown := k.Name
		if k.Node == FE && k.Experimental {
			shown = ExperimentalPrefix + k.Name
		}
		if got, ok := ConfigKeyNamed(k.Node, shown); !ok || got.Name != k.Name || !got.Matches(shown) {
			t.Errorf("%s: not found by the name SHOW FRONTEND CONFIG prints, %s", id, shown)
		}
	}
	k, _ := ConfigKeyNamed(FE, "experimental_enable_feature_binlog")
	if !k.Experimental || !k.Matches("enable_feature_binlog") || !k.Matches("experimental_enable_feature_binlog") {
		t.Errorf("enable_feature_binlog: %+v", k)
	}
	if b, _ := ConfigKeyNamed(BE, "enable_feature_binlog"); b.Matches("experimental_enable_feature_binlog") {
		t.Errorf("a BE key has no experimental_ spelling")
	}
}

func TestIsMasked(t *testing.T) {
	for v, want := range map[string]bool{SensitiveMask: true, "***": true, "": false, "*": false, "a***": false, "false": false} {
		if IsMasked(v) != want {
			t.Errorf("IsMasked(%q) = %v", v, !want)
		}
	}
}
