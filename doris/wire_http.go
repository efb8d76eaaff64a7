package doris

import (
	"path"
	"strings"
)

// The HTTP side of "read-only": dorisdiag sends GET only, to the endpoints
// of this contract, and never to an endpoint that changes a node — some of
// Doris's do so on a GET (scrape.CheckHTTPRead enforces both, before any
// byte is sent and on every redirect).

// ForbiddenEndpoint is a Doris HTTP endpoint that changes a node, listed so
// that no request of dorisdiag (a redirect, a URL a user names, a future
// edit) can reach it.
type ForbiddenEndpoint struct {
	// Path is the pattern: "{x}" matches one path segment; a pattern ending
	// in "/" matches every path under it.
	Path   string
	Node   NodeKind
	Method string // the method Doris maps it to
	What   string
	Source string
}

// ForbiddenEndpoints lists the mutating endpoints of Doris's FE and BE HTTP
// servers, GET ones first.
var ForbiddenEndpoints = []ForbiddenEndpoint{
	{Path: "/api/_set_config", Node: FE, Method: "GET", What: "sets FE configuration items from the query string (persist=true writes fe_custom.conf)",
		Source: "fe/fe-core/src/main/java/org/apache/doris/httpv2/rest/SetConfigAction.java (GET, ADMIN)"},
	{Path: "/rest/v2/manager/node/set_config/", Node: FE, Method: "POST", What: "sets FE or BE configuration on many nodes (it calls /api/_set_config and /api/update_config)",
		Source: "fe/fe-core/src/main/java/org/apache/doris/httpv2/rest/manager/NodeAction.java"},
	{Path: "/api/update_config", Node: BE, Method: "POST", What: "sets a BE configuration item (persist=true writes be_custom.conf)",
		Source: "be/src/http/http_service.cpp; ConfigAction::handle_update_config"},
	{Path: "/api/reset_rpc_channel/", Node: BE, Method: "GET", What: "drops the BE's cached RPC channels",
		Source: "be/src/http/http_service.cpp (ResetRPCChannelAction, GET, ADMIN)"},
	{Path: "/api/file_cache", Node: BE, Method: "GET", What: "op=clear empties the BE's file cache",
		Source: "be/src/http/action/file_cache_action.cpp; regression suites call ?op=clear&sync=true"},
	{Path: "/api/compaction/run", Node: BE, Method: "POST", What: "starts a compaction", Source: "be/src/http/http_service.cpp (CompactionAction RUN_COMPACTION)"},
	{Path: "/api/check_tablet_segment_lost", Node: BE, Method: "POST", What: "repair=true drops tablets with lost segments",
		Source: "be/src/http/http_service.cpp (CheckTabletSegmentAction)"},
	{Path: "/api/{db}/{table}/_stream_load", Node: FE, Method: "PUT", What: "loads data (307 to a BE)", Source: "LoadAction.java"},
	{Path: "/api/{db}/_stream_load_2pc", Node: FE, Method: "PUT", What: "commits or aborts a two-phase Stream Load", Source: "LoadAction.java"},
	{Path: "/api/{db}/{table}/_stream_load_2pc", Node: FE, Method: "PUT", What: "commits or aborts a two-phase Stream Load", Source: "LoadAction.java"},
	{Path: "/api/_http_stream", Node: FE, Method: "PUT", What: "loads data with SQL", Source: "LoadAction.java"},
	{Path: "/api/{db}/{table}/_load", Node: FE, Method: "PUT", What: "the older mini load", Source: "LoadAction.java"},
}

// MatchPath reports whether a request path matches an endpoint pattern:
// compared after cleaning ("//", "/./", "/../"), case-insensitively, "{x}"
// standing for one segment, and a pattern ending in "/" for itself and
// every path under it.
func MatchPath(pattern, p string) bool {
	p = cleanPath(p)
	prefix := strings.HasSuffix(pattern, "/")
	pp := strings.Split(strings.Trim(pattern, "/"), "/")
	ps := strings.Split(strings.Trim(p, "/"), "/")
	if len(ps) < len(pp) || !prefix && len(ps) != len(pp) {
		return false
	}
	for i, seg := range pp {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			if ps[i] == "" {
				return false
			}
			continue
		}
		if !strings.EqualFold(seg, ps[i]) {
			return false
		}
	}
	return true
}

func cleanPath(p string) string {
	if p == "" {
		return "/"
	}
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return path.Clean(p)
}

// Forbidden returns the forbidden endpoint a request path reaches.
func Forbidden(p string) (ForbiddenEndpoint, bool) {
	for _, f := range ForbiddenEndpoints {
		if MatchPath(f.Path, p) {
			return f, true
		}
	}
	return ForbiddenEndpoint{}, false
}

// Endpoint returns the contract's HTTP relation a request path is for.
func Endpoint(p string) (*Relation, bool) {
	for _, r := range All() {
		if r.Kind != HTTP {
			continue
		}
		pattern := strings.ReplaceAll(r.Name, "{db}", "{segment}")
		if MatchPath(strings.TrimSuffix(pattern, "/"), p) {
			return r, true
		}
	}
	return nil, false
}
