package cmd

// The JSON contract (issue 12, docs/cli.md "JSON documents"): every document
// dorisdiag prints has exactly one "schema_version" and one "kind"; each kind
// has a JSON Schema (draft 2020-12) under docs/schema/, generated from the Go
// type that is encoded and checked in. The tests here validate every golden
// JSON file and every document a test makes a command print against its
// kind's schema, refuse unknown kinds and duplicate keys, and keep a record of
// each schema_version's fields so that a changed field cannot ship without a
// schema_version bump.

import (
	"bufio"
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/dorisdiag/dorisdiag/bundle"
	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/report"
	consumersreport "github.com/dorisdiag/dorisdiag/report/consumers"
	doctorreport "github.com/dorisdiag/dorisdiag/report/doctor"
	metricsreport "github.com/dorisdiag/dorisdiag/report/metrics"
	mvreport "github.com/dorisdiag/dorisdiag/report/mv"
	tsoreport "github.com/dorisdiag/dorisdiag/report/tso"
	"github.com/dorisdiag/dorisdiag/snapshot"
	"github.com/dorisdiag/dorisdiag/tso"
)

var updateSchema = flag.Bool("update-schema", false, "rewrite docs/schema/*.schema.json from the Go types and record new fields (never a changed one)")

const schemaDir = "../docs/schema"

// schemaIDBase names the schemas; an identifier, not necessarily resolvable.
const schemaIDBase = "https://github.com/dorisdiag/dorisdiag/docs/schema/"

// docKind is one kind of JSON document: the Go type(s) its body is encoded
// from (more than one: the document is exactly one of them).
type docKind struct {
	kind, title string
	bodies      []reflect.Type
}

// Bodies built as map[string]any or by a MarshalJSON, mirrored as structs
// with the same keys so that they have a schema too. The goldens and
// TestEveryKindEmitted validate real output against them.
type (
	explainOneBody struct {
		Code     string   `json:"code"`
		Severity string   `json:"severity"`
		Title    string   `json:"title"`
		Spec     string   `json:"spec"`
		Meaning  string   `json:"meaning"`
		Matters  string   `json:"why_it_matters"`
		Confirm  string   `json:"how_to_confirm"`
		Fix      string   `json:"how_to_fix"`
		Action   string   `json:"action"`
		Related  []string `json:"related"`
	}
	explainListBody struct {
		Codes []explainOneBody `json:"codes"`
	}
)

func typ[T any]() reflect.Type { return reflect.TypeFor[T]() }

// docKinds is every kind dorisdiag prints as JSON: the report.Doc types
// (report.Emit), the kinds cmd/ still passes to report.JSON, and the
// snapshot file (snapshot.Write). A new kind is added here.
var docKinds = []docKind{
	{"bundle_manifest", "manifest.json of a dorisdiag bundle archive (and dorisdiag bundle -o json)", []reflect.Type{typ[bundle.Manifest]()}},
	{"check", "dorisdiag check -o json", []reflect.Type{typ[report.CheckDoc]()}},
	{"consumers", "dorisdiag consumers -o json", []reflect.Type{typ[consumersreport.Doc]()}},
	{"doctor", "dorisdiag doctor [config|net|labels] -o json", []reflect.Type{typ[doctorreport.DoctorDoc]()}},
	{"explain", "dorisdiag explain [CODE] -o json", []reflect.Type{typ[explainOneBody](), typ[explainListBody]()}},
	{"headroom", "dorisdiag headroom -o json", []reflect.Type{typ[report.HeadroomDoc]()}},
	{"metrics_fix", "dorisdiag metrics lint --fix -o json (the report of the changes)", []reflect.Type{typ[metricsreport.MetricsFixDoc]()}},
	{"metrics_lint", "dorisdiag metrics lint FILE -o json", []reflect.Type{typ[metricsreport.MetricsLintDoc]()}},
	{"metrics_lint_snapshot", "dorisdiag metrics lint --snapshot/--demo -o json", []reflect.Type{typ[metricsreport.MetricsLintSnapshotDoc]()}},
	{"metrics_scrape", "dorisdiag metrics scrape -o json", []reflect.Type{typ[metricsreport.MetricsScrapeDoc]()}},
	{"mv_explain", "dorisdiag mv explain DB.MV -o json", []reflect.Type{typ[mvreport.MVExplainDoc]()}},
	{"mv_list", "dorisdiag mv list -o json", []reflect.Type{typ[mvreport.MVListDoc]()}},
	{"snapshot", "a dorisdiag snapshot file (dorisdiag snapshot -f FILE)", []reflect.Type{typ[snapshot.Snapshot]()}},
	{"snapshot_summary", "dorisdiag snapshot --summary -o json", []reflect.Type{typ[report.SnapshotSummaryDoc]()}},
	{"stream", "dorisdiag streams show DB.STREAM -o json", []reflect.Type{typ[report.StreamDoc]()}},
	{"streams", "dorisdiag streams -o json", []reflect.Type{typ[report.StreamsDoc]()}},
	{"tso_decode", "dorisdiag tso decode -o json", []reflect.Type{typ[tsoreport.TSODecodeDoc]()}},
	{"tso_diff", "dorisdiag tso diff -o json", []reflect.Type{typ[tsoreport.TSODiffDoc]()}},
	{"tso_encode", "dorisdiag tso encode -o json", []reflect.Type{typ[tsoreport.TSOEncodeDoc]()}},
	{"tso_headroom", "dorisdiag tso headroom -o json", []reflect.Type{typ[tsoreport.TSOHeadroomDoc]()}},
	{"tso_lag", "dorisdiag tso lag -o json", []reflect.Type{typ[tsoreport.TSOLagDoc]()}},
	{"version", "dorisdiag version -o json", []reflect.Type{typ[versionInfo]()}},
	{"watch_error", "a failed --watch round (dorisdiag check|streams|mv --watch -o json)", []reflect.Type{typ[report.WatchErrorDoc]()}},
}

// versionOf is the schema_version a kind is written with.
func versionOf(kind string) int {
	if kind == snapshot.Kind {
		return snapshot.SchemaVersion
	}
	if kind == bundle.ManifestKind {
		return bundle.ManifestSchemaVersion
	}
	return report.SchemaVersion
}

// ---- generating a schema from a Go type (encoding/json's rules) ----

type schemaGen struct {
	defs map[string]any
	errs []string
}

func (g *schemaGen) failf(format string, a ...any) {
	g.errs = append(g.errs, fmt.Sprintf(format, a...))
}

var (
	marshalerType     = typ[json.Marshaler]()
	textMarshalerType = typ[encoding.TextMarshaler]()
)

func severityEnum() []any {
	var out []any
	for s := diag.Severity(0); s < 16; s++ {
		if n := s.String(); !strings.HasPrefix(n, "severity(") {
			out = append(out, n)
		}
	}
	return out
}

// known is the schema of each type with its own MarshalJSON. Any other
// marshaler is an error: its shape cannot be derived from its fields.
func (g *schemaGen) known(t reflect.Type) (map[string]any, bool) {
	switch t {
	case typ[time.Time]():
		return map[string]any{"type": "string", "format": "date-time"}, true
	case typ[tso.TSO]():
		// A TSO is a decimal string: it exceeds 2^53 (tso/json.go).
		return map[string]any{"type": "string", "pattern": "^-?[0-9]+$"}, true
	case typ[diag.Code]():
		// A finding code (docs/findings.md). Not an enum: a new code is not
		// a schema change.
		return map[string]any{"type": "string", "pattern": "^[A-Z][A-Z0-9_]*$"}, true
	case typ[diag.Severity]():
		return map[string]any{"type": "string", "enum": severityEnum()}, true
	}
	if t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType) ||
		t.Implements(textMarshalerType) || reflect.PointerTo(t).Implements(textMarshalerType) {
		g.failf("%s has its own MarshalJSON/MarshalText: add its schema to schemaGen.known", t)
		return map[string]any{}, true
	}
	return nil, false
}

func defName(t reflect.Type) string {
	pkg := t.PkgPath()
	if strings.HasPrefix(pkg, "github.com/dorisdiag/dorisdiag/report/") {
		pkg = "report" // a document kind's package: its types keep the names they had in report
	}
	if i := strings.LastIndex(pkg, "/"); i >= 0 {
		pkg = pkg[i+1:]
	}
	n := pkg + "." + t.Name()
	return strings.NewReplacer("[", "_", "]", "_", "/", "_", "*", "_").Replace(n)
}

func (g *schemaGen) schema(t reflect.Type) map[string]any {
	if t.Kind() == reflect.Pointer {
		return g.schema(t.Elem())
	}
	if s, ok := g.known(t); ok {
		return s
	}
	switch t.Kind() {
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Interface:
		return map[string]any{}
	case reflect.Pointer:
		return g.schema(t.Elem())
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return map[string]any{"type": "string", "contentEncoding": "base64"}
		}
		return map[string]any{"type": "array", "items": g.elem(t.Elem())}
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			g.failf("%s: map keys must be strings", t)
		}
		return map[string]any{"type": "object", "additionalProperties": g.elem(t.Elem())}
	case reflect.Struct:
		if t.Name() == "" {
			return g.object(t)
		}
		name := defName(t)
		if _, ok := g.defs[name]; !ok {
			g.defs[name] = nil // placeholder: recursion stops here
			g.defs[name] = g.object(t)
		}
		return map[string]any{"$ref": "#/$defs/" + name}
	}
	g.failf("%s: no JSON schema for kind %s", t, t.Kind())
	return map[string]any{}
}

// elem is the schema of a slice or map element: a nil pointer, slice or map
// element encodes as null.
func (g *schemaGen) elem(t reflect.Type) map[string]any {
	s := g.schema(t)
	if nilable(t) {
		return orNull(s)
	}
	return s
}

func nilable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		return true
	}
	return false
}

func orNull(s map[string]any) map[string]any {
	if len(s) == 0 {
		return s // anything, null included
	}
	if ty, ok := s["type"].(string); ok {
		c := map[string]any{}
		for k, v := range s {
			c[k] = v
		}
		c["type"] = []any{ty, "null"}
		if e, ok := c["enum"].([]any); ok {
			c["enum"] = append(append([]any{}, e...), nil)
		}
		return c
	}
	return map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
}

type jsonField struct {
	name      string
	omitEmpty bool
	tagged    bool
	depth     int
	typ       reflect.Type
}

// fields lists a struct's JSON fields as encoding/json does: embedded
// structs without a name are flattened; of two fields with one name the
// shallower wins, at one depth a tagged one wins, otherwise neither is
// encoded.
func fields(t reflect.Type) []jsonField {
	var all []jsonField
	var walk func(t reflect.Type, depth int, seen map[reflect.Type]bool)
	walk = func(t reflect.Type, depth int, seen map[reflect.Type]bool) {
		if seen[t] {
			return
		}
		seen[t] = true
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			ft := f.Type
			if f.Anonymous && name == "" {
				et := ft
				if et.Kind() == reflect.Pointer {
					et = et.Elem()
				}
				if et.Kind() == reflect.Struct {
					walk(et, depth+1, seen)
					continue
				}
			}
			if !f.IsExported() {
				continue
			}
			jf := jsonField{name: name, tagged: name != "", depth: depth, typ: ft}
			if name == "" {
				jf.name = f.Name
			}
			for _, o := range strings.Split(opts, ",") {
				if o == "omitempty" || o == "omitzero" {
					jf.omitEmpty = true
				}
			}
			all = append(all, jf)
		}
	}
	walk(t, 0, map[reflect.Type]bool{})
	byName := map[string][]jsonField{}
	var order []string
	for _, f := range all {
		if _, ok := byName[f.name]; !ok {
			order = append(order, f.name)
		}
		byName[f.name] = append(byName[f.name], f)
	}
	var out []jsonField
	for _, n := range order {
		fs := byName[n]
		min := fs[0].depth
		for _, f := range fs {
			if f.depth < min {
				min = f.depth
			}
		}
		var top []jsonField
		for _, f := range fs {
			if f.depth == min {
				top = append(top, f)
			}
		}
		if len(top) > 1 {
			var tagged []jsonField
			for _, f := range top {
				if f.tagged {
					tagged = append(tagged, f)
				}
			}
			top = tagged
		}
		if len(top) == 1 {
			out = append(out, top[0])
		}
	}
	return out
}

// object is a closed object: every field that is always encoded is required,
// no other property is allowed, so a renamed field fails validation.
func (g *schemaGen) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	required := []any{}
	for _, f := range fields(t) {
		s := g.schema(f.typ)
		if !f.omitEmpty {
			required = append(required, f.name)
			if nilable(f.typ) {
				s = orNull(s)
			}
		}
		props[f.name] = s
	}
	return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
}

// generate is the schema of one kind: its body with "schema_version" and
// "kind" in front (report.JSON; snapshot.Write for the snapshot).
func generate(k docKind) (map[string]any, error) {
	g := &schemaGen{defs: map[string]any{}}
	var variants []any
	for _, b := range k.bodies {
		var body map[string]any
		if b.Kind() == reflect.Struct && b.Name() != "" {
			body = g.object(b) // the document itself, not a $ref
		} else {
			body = g.schema(b)
		}
		props := body["properties"].(map[string]any)
		for _, h := range []string{"schema_version", "kind"} {
			if _, dup := props[h]; dup && !(k.kind == snapshot.Kind || k.kind == bundle.ManifestKind) { // files that carry their own head
				g.failf("%s: the body %s has its own top-level %q: it would be a second %q key in the document", k.kind, b, h, h)
			}
		}
		props["schema_version"] = map[string]any{"const": versionOf(k.kind)}
		kindSchema := map[string]any{"const": k.kind}
		props["kind"] = kindSchema
		req := []any{"schema_version", "kind"}
		for _, r := range body["required"].([]any) {
			if r != "schema_version" && r != "kind" {
				req = append(req, r)
			}
		}
		if k.kind == snapshot.Kind {
			// Snapshot files written before "kind" existed have none
			// (snapshot.Decode reads them); every file written now has it.
			req = []any{}
			for _, r := range body["required"].([]any) {
				if r != "kind" {
					req = append(req, r)
				}
			}
		}
		body["required"] = req
		variants = append(variants, body)
	}
	if len(g.errs) > 0 {
		return nil, errors.New(strings.Join(g.errs, "\n"))
	}
	root := map[string]any{
		"$schema":     "https://json-schema.org/draft/2020-12/schema",
		"$id":         schemaIDBase + k.kind + ".schema.json",
		"title":       k.title,
		"description": fmt.Sprintf("dorisdiag JSON document of kind %q, schema_version %d (docs/cli.md \"JSON documents\"). Generated from the Go types by `go test ./cmd -update-schema`.", k.kind, versionOf(k.kind)),
	}
	if len(variants) == 1 {
		for key, v := range variants[0].(map[string]any) {
			root[key] = v
		}
	} else {
		root["oneOf"] = variants
	}
	if len(g.defs) > 0 {
		root["$defs"] = g.defs
	}
	return root, nil
}

func schemaPath(kind string) string { return filepath.Join(schemaDir, kind+".schema.json") }

func marshalSchema(s map[string]any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// TestSchemasUpToDate keeps docs/schema/ equal to what the Go types encode.
func TestSchemasUpToDate(t *testing.T) {
	want := map[string]bool{}
	for _, k := range docKinds {
		want[k.kind+".schema.json"] = true
		s, err := generate(k)
		if err != nil {
			t.Errorf("kind %s: %v", k.kind, err)
			continue
		}
		got := marshalSchema(s)
		path := schemaPath(k.kind)
		if *updateSchema {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		old, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("kind %s has no schema: %v (run go test ./cmd -update-schema)", k.kind, err)
			continue
		}
		if !bytes.Equal(old, got) {
			t.Errorf("%s is stale: the Go type of %q documents changed. Run go test ./cmd -update-schema; a changed or removed field also needs a schema_version bump (TestSchemaFieldsRecorded)", path, k.kind)
		}
	}
	entries, err := os.ReadDir(schemaDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".schema.json") && !want[e.Name()] {
			t.Errorf("%s/%s is the schema of no kind in docKinds: remove it", schemaDir, e.Name())
		}
	}
}

// ---- validating documents ----

var (
	schemasOnce sync.Once
	schemas     map[string]*jsonschema.Schema
	schemasErr  error
)

func compiledSchemas() (map[string]*jsonschema.Schema, error) {
	schemasOnce.Do(func() {
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		c.AssertFormat()
		schemas = map[string]*jsonschema.Schema{}
		for _, k := range docKinds {
			f, err := os.Open(schemaPath(k.kind))
			if err != nil {
				schemasErr = err
				return
			}
			doc, err := jsonschema.UnmarshalJSON(f)
			f.Close()
			if err != nil {
				schemasErr = fmt.Errorf("%s: %w", schemaPath(k.kind), err)
				return
			}
			id := schemaIDBase + k.kind + ".schema.json"
			if err := c.AddResource(id, doc); err != nil {
				schemasErr = err
				return
			}
			s, err := c.Compile(id)
			if err != nil {
				schemasErr = fmt.Errorf("%s: %w", schemaPath(k.kind), err)
				return
			}
			schemas[k.kind] = s
		}
	})
	return schemas, schemasErr
}

// duplicateKey returns the first object key that occurs twice in one object
// of the JSON text, with its path; "" when there is none.
func duplicateKey(data []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var walk func(path string) (string, error)
	walk = func(path string) (string, error) {
		tok, err := dec.Token()
		if err != nil {
			return "", err
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return "", err
				}
				key := kt.(string)
				if seen[key] {
					return path + "." + key, nil
				}
				seen[key] = true
				if d, err := walk(path + "." + key); d != "" || err != nil {
					return d, err
				}
			}
			_, err = dec.Token()
			return "", err
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				if d, err := walk(fmt.Sprintf("%s[%d]", path, i)); d != "" || err != nil {
					return d, err
				}
			}
			_, err = dec.Token()
			return "", err
		}
		return "", nil
	}
	return walk("")
}

// validateDocument checks one JSON document: no duplicate key, exactly one
// schema_version and kind (a duplicate is a duplicate key), a kind that has a
// schema, and the schema.
func validateDocument(data []byte) error {
	if d, err := duplicateKey(data); err != nil {
		return fmt.Errorf("not JSON: %w", err)
	} else if d != "" {
		return fmt.Errorf("duplicate key %s", d)
	}
	var head struct {
		Kind *string `json:"kind"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return fmt.Errorf("not a JSON object with a string kind: %w", err)
	}
	if head.Kind == nil {
		return errors.New("no \"kind\"")
	}
	all, err := compiledSchemas()
	if err != nil {
		return err
	}
	s, ok := all[*head.Kind]
	if !ok {
		return fmt.Errorf("unknown kind %q: no docs/schema/%s.schema.json", *head.Kind, *head.Kind)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	if err := s.Validate(v); err != nil {
		return fmt.Errorf("kind %s: %v", *head.Kind, err)
	}
	return nil
}

// jsonDocuments splits a command's stdout into its JSON documents, or
// returns nil when the output is not JSON (a table, markdown, prom). Lines
// starting with "# " between documents (--watch round headers) are skipped.
func jsonDocuments(out string) ([][]byte, error) {
	trimmed := strings.TrimSpace(out)
	if !strings.HasPrefix(trimmed, "{") && !strings.HasPrefix(trimmed, "# round") {
		return nil, nil
	}
	var kept strings.Builder
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "# ") {
			continue
		}
		kept.WriteString(sc.Text())
		kept.WriteByte('\n')
	}
	if !strings.HasPrefix(strings.TrimSpace(kept.String()), "{") {
		return nil, nil
	}
	dec := json.NewDecoder(strings.NewReader(kept.String()))
	var docs [][]byte
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			return docs, nil
		}
		if err != nil {
			return docs, fmt.Errorf("output is not a stream of JSON documents: %w", err)
		}
		docs = append(docs, raw)
	}
}

// checkEmitted validates every JSON document in a command's stdout; run()
// calls it, so every command a test runs with -o json is checked.
func checkEmitted(t *testing.T, args []string, out string) {
	t.Helper()
	docs, err := jsonDocuments(out)
	if err != nil {
		t.Errorf("dorisdiag %s: %v", strings.Join(args, " "), err)
	}
	for i, d := range docs {
		if err := validateDocument(d); err != nil {
			t.Errorf("dorisdiag %s: document %d: %v", strings.Join(args, " "), i+1, err)
		}
	}
}

// goldenJSONFiles is every JSON file in the repository that is a dorisdiag
// document: the goldens under */testdata/ and the bundled scenarios.
func goldenJSONFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || path == schemaDir) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".json") {
			return nil
		}
		// <scenario>.expect.json lists the findings a scenario must raise
		// (fixtures/scenarios/EXPECTED.md): a test input, not a document.
		if strings.HasSuffix(path, ".expect.json") {
			return nil
		}
		// docs/dashboards/*.json are Grafana dashboards (docs/exporter.md),
		// checked by their generator's test in package exporter.
		if filepath.Base(filepath.Dir(path)) == "dashboards" {
			return nil
		}
		files = append(files, path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestGoldenJSONValidates(t *testing.T) {
	files := goldenJSONFiles(t)
	kinds := map[string]int{}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := validateDocument(data); err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		var head struct{ Kind string }
		_ = json.Unmarshal(data, &head)
		kinds[head.Kind]++
	}
	if len(files) < 20 || kinds["check"] == 0 || kinds["snapshot"] < 3 {
		t.Errorf("walked %d JSON files (%v): the walk no longer finds the goldens", len(files), kinds)
	}
}

// Every kind prints at least one document here, over the bundled scenarios,
// so no schema is checked against nothing.
func TestEveryKindEmitted(t *testing.T) {
	dir := t.TempDir()
	prom := filepath.Join(dir, "be.prom")
	if err := os.WriteFile(prom, []byte(readFixture(t, "be.prom")), 0o644); err != nil {
		t.Fatal(err)
	}
	snapFile := filepath.Join(dir, "s.json")
	if _, _, code := run(t, nil, "", "snapshot", "--demo", "incident", "-f", snapFile); code != cmdutil.ExitOK {
		t.Fatalf("snapshot --demo incident -f: exit %d", code)
	}
	doctorFile := filepath.Join(dir, "doctor.json")
	writeDoctorSnapshot(t, doctorFile)
	var cmds [][]string
	cmds = append(cmds, []string{"doctor", "--snapshot", doctorFile, "-o", "json", "--fail-on", "none"})
	for _, sc := range []string{"healthy", "incident", "legacy"} {
		cmds = append(cmds,
			[]string{"check", "--demo", sc, "-o", "json", "--fail-on", "none"},
			[]string{"mv", "list", "--demo", sc, "-o", "json", "--fail-on", "none"},
			[]string{"streams", "--demo", sc, "-o", "json", "--fail-on", "none"},
			[]string{"headroom", "--demo", sc, "-o", "json", "--fail-on", "none"},
			[]string{"consumers", "--demo", sc, "-o", "json", "--fail-on", "none"},
			[]string{"snapshot", "--demo", sc, "--summary", "-o", "json"},
			[]string{"snapshot", "--demo", sc},
		)
	}
	cmds = append(cmds,
		[]string{"mv", "explain", "demo.mv_orders_daily", "--demo", "incident", "-o", "json", "--fail-on", "none"},
		[]string{"streams", "show", "demo.s_orders_cdc", "--demo", "incident", "-o", "json", "--fail-on", "none"},
		[]string{"check", "--snapshot", snapFile, "-o", "json", "--fail-on", "none"},
		[]string{"metrics", "lint", "--demo", "incident", "-o", "json", "--fail-on", "none"},
		[]string{"explain", "-o", "json"},
		[]string{"explain", "STREAM_HEADROOM_LOW", "-o", "json"},
		[]string{"metrics", "lint", prom, "-o", "json", "--fail-on", "none"},
		[]string{"metrics", "lint", prom, "--fix", "-o", "json", "--fail-on", "none"},
		[]string{"metrics", "scrape", "--demo", "incident", "-o", "json", "--fail-on", "none"},
		[]string{"tso", "decode", "470819222323200000", "N/A", "-o", "json"},
		[]string{"tso", "encode", "2026-11-30T10:00:00Z", "-o", "json"},
		[]string{"tso", "diff", "469067681628160003", "469067419484160000", "-o", "json"},
		[]string{"tso", "lag", "262144000", "-o", "json"},
		[]string{"tso", "lag", "N/A", "-o", "json"},
		[]string{"tso", "headroom", "--offset", "470819222323200000", "--ttl", "86400", "--now-time", "2026-11-30T12:00:00Z", "-o", "json"},
		[]string{"version", "-o", "json"},
		[]string{"bundle", "--demo", "incident", "-f", filepath.Join(dir, "b.tar.gz"), "-o", "json"},
	)
	seen := map[string]bool{}
	for _, args := range cmds {
		stdout, stderr, _ := run(t, nil, "", args...)
		docs, _ := jsonDocuments(stdout)
		if len(docs) == 0 {
			// metrics lint --fix writes the payload to stdout, the report to stderr.
			docs, _ = jsonDocuments(stderr)
			checkEmitted(t, args, stderr)
		}
		if len(docs) == 0 {
			t.Errorf("dorisdiag %s: no JSON document (stderr %.300s)", strings.Join(args, " "), stderr)
		}
		for _, d := range docs {
			var head struct{ Kind string }
			_ = json.Unmarshal(d, &head)
			seen[head.Kind] = true
		}
	}
	// A failed --watch round (watch_error) needs a cluster that goes away.
	if !testing.Short() {
		live, e := startEmulator(t, "healthy")
		closeAfterRound1(t, e)
		args := append([]string{"streams", "--watch", "1ms", "--watch-rounds", "2", "-o", "json"}, live...)
		stdout, _, _ := run(t, nil, "", args...)
		for _, l := range ndjsonLines(t, args, stdout) {
			seen[l.Kind] = true
		}
	} else {
		seen["watch_error"] = true
	}
	for _, k := range docKinds {
		if !seen[k.kind] {
			t.Errorf("no command here printed a %q document: its schema is checked against nothing", k.kind)
		}
	}
}

// The validator itself must fail: an unknown kind, a missing kind, a
// renamed field, a wrong type, a second "kind" (today's tso encode bug).
func TestValidateDocumentRefuses(t *testing.T) {
	good, err := os.ReadFile("testdata/tso_encode.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := validateDocument(good); err != nil {
		t.Fatalf("the tso encode golden does not validate: %v", err)
	}
	s := string(good)
	for _, tc := range []struct{ name, doc, want string }{
		{"unknown kind", strings.Replace(s, `"tso_encode"`, `"tso_encodes"`, 1), `unknown kind "tso_encodes"`},
		{"no kind", strings.Replace(s, `"kind": "tso_encode",`, ``, 1), `no "kind"`},
		{"renamed field", strings.Replace(s, `"physical_ms"`, `"physicalMs"`, 1), "physicalMs"},
		{"missing field", strings.Replace(s, `"hex": "0x688af9694000000"`, `"logical2": 0`, 1), "hex"},
		{"wrong type", strings.Replace(s, `"tso": "470819222323200000"`, `"tso": 470819222323200000`, 1), "tso"},
		{"wrong schema_version", strings.Replace(s, `"schema_version": 2`, `"schema_version": 1`, 1), "schema_version"},
		{"two kinds", strings.Replace(s, `"input":`, `"kind": "tso", "input":`, 1), "duplicate key .kind"},
		{"nested duplicate", `{"schema_version":2,"kind":"version","version":"x","go_version":"y","z":{"a":1,"a":2}}`, "duplicate key .z.a"},
	} {
		err := validateDocument([]byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error mentioning %q", tc.name, err, tc.want)
		}
	}
}

// Issue 12: `tso encode -o json` printed "kind" twice; most parsers keep the
// last, so .kind read "tso". Exactly one kind, the document's.
func TestTSOEncodeOneKind(t *testing.T) {
	out, _, code := run(t, nil, "", "tso", "encode", "2026-11-30T10:00:00Z", "-o", "json")
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d", code)
	}
	if n := strings.Count(out, `"kind"`); n != 1 {
		t.Errorf("%d \"kind\" keys, want 1:\n%s", n, out)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc["kind"] != "tso_encode" {
		t.Errorf("kind as a parser reads it: %v (%v), want tso.encode", doc["kind"], err)
	}
}

// ---- a changed field is a schema_version bump ----

// schemaFields lists every property of a schema file, one line each:
// "KIND PATH TYPE required|optional", plus "KIND PATH closed" for a closed
// object. PATH is the JSON path from the document root ($refs are followed,
// so a Go type renamed or moved between packages is not a change); TYPE is
// the property's type, const, enum, format and pattern. Descriptions and
// titles are not fields.
func schemaFields(kind string, root map[string]any) []string {
	defs, _ := root["$defs"].(map[string]any)
	resolve := func(p map[string]any, stack map[string]bool) (map[string]any, string) {
		ref, ok := p["$ref"].(string)
		if !ok {
			return p, ""
		}
		name := strings.TrimPrefix(ref, "#/$defs/")
		if d, ok := defs[name].(map[string]any); ok && !stack[name] {
			return d, name
		}
		return map[string]any{"type": "object", "recursive": true}, ""
	}
	var sum func(p map[string]any, stack map[string]bool) string
	sum = func(p map[string]any, stack map[string]bool) string {
		p, _ = resolve(p, stack)
		var b []string
		for _, k := range []string{"type", "const", "enum", "format", "pattern", "contentEncoding"} {
			if v, ok := p[k]; ok {
				j, _ := json.Marshal(v)
				b = append(b, k+"="+string(j))
			}
		}
		if it, ok := p["items"].(map[string]any); ok {
			b = append(b, "items{"+sum(it, stack)+"}")
		}
		if ap, ok := p["additionalProperties"].(map[string]any); ok {
			b = append(b, "values{"+sum(ap, stack)+"}")
		}
		if alts, ok := p["anyOf"].([]any); ok {
			for _, a := range alts {
				b = append(b, "anyOf{"+sum(a.(map[string]any), stack)+"}")
			}
		}
		return strings.Join(b, " ")
	}
	var lines []string
	var walk func(node map[string]any, path string, stack map[string]bool)
	walk = func(node map[string]any, path string, stack map[string]bool) {
		node, name := resolve(node, stack)
		if name != "" {
			stack = maps.Clone(stack)
			stack[name] = true
		}
		req := map[string]bool{}
		if r, ok := node["required"].([]any); ok {
			for _, x := range r {
				req[x.(string)] = true
			}
		}
		if props, ok := node["properties"].(map[string]any); ok {
			if node["additionalProperties"] == false {
				lines = append(lines, fmt.Sprintf("%s %s closed", kind, path))
			}
			for name, p := range props {
				pm := p.(map[string]any)
				r := "optional"
				if req[name] {
					r = "required"
				}
				lines = append(lines, fmt.Sprintf("%s %s.%s %s %s", kind, path, name, sum(pm, stack), r))
				walk(pm, path+"."+name, stack)
			}
		}
		if sub, ok := node["items"].(map[string]any); ok {
			walk(sub, path+"[]", stack)
		}
		if sub, ok := node["additionalProperties"].(map[string]any); ok {
			walk(sub, path+"{}", stack)
		}
		for _, key := range []string{"oneOf", "anyOf"} {
			if subs, ok := node[key].([]any); ok {
				for i, sub := range subs {
					walk(sub.(map[string]any), fmt.Sprintf("%s(%s%d)", path, key, i), stack)
				}
			}
		}
	}
	walk(root, "", map[string]bool{})
	sort.Strings(lines)
	return slices.Compact(lines)
}

// fieldsFile is where the fields of one schema_version are recorded: one
// file for the report documents (report.SchemaVersion), one for snapshot
// files (snapshot.SchemaVersion).
func fieldsFile(snap bool) string {
	if snap {
		return filepath.Join(schemaDir, "fields", fmt.Sprintf("snapshot.v%d.txt", snapshot.SchemaVersion))
	}
	return filepath.Join(schemaDir, "fields", fmt.Sprintf("report.v%d.txt", report.SchemaVersion))
}

// TestSchemaFieldsRecorded: the fields of the schemas in docs/schema/ are
// recorded per schema_version. A recorded field that is gone or has another
// type is a change an older parser would misread: it needs a schema_version
// bump (and a new record), which -update-schema refuses to paper over. A new
// field is recorded with -update-schema and needs no bump (report.go).
func TestSchemaFieldsRecorded(t *testing.T) {
	for _, snap := range []bool{false, true} {
		var cur []string
		for _, k := range docKinds {
			if (k.kind == snapshot.Kind) != snap {
				continue
			}
			data, err := os.ReadFile(schemaPath(k.kind))
			if err != nil {
				t.Fatal(err)
			}
			var s map[string]any
			if err := json.Unmarshal(data, &s); err != nil {
				t.Fatalf("%s: %v", schemaPath(k.kind), err)
			}
			cur = append(cur, schemaFields(k.kind, s)...)
		}
		sort.Strings(cur)
		checkFieldRecord(t, fieldsFile(snap), cur, snap)
	}
}

func checkFieldRecord(t *testing.T, path string, cur []string, snap bool) {
	t.Helper()
	bump := "bump report.SchemaVersion (report/report.go)"
	if snap {
		bump = "bump snapshot.SchemaVersion (snapshot/model.go, with its schema history)"
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		if *updateSchema {
			writeFieldRecord(t, path, cur)
			return
		}
		t.Fatalf("%s: no record of this schema_version's fields: run go test ./cmd -update-schema", path)
	} else if err != nil {
		t.Fatal(err)
	}
	gone, added := diffFields(strings.Split(strings.TrimSpace(string(data)), "\n"), cur)
	if len(gone) > 0 {
		t.Errorf("fields of this schema_version changed or disappeared (%s): %s and record the new fingerprint with go test ./cmd -update-schema; docs/cli.md \"JSON documents\":\n  %s",
			path, bump, strings.Join(gone, "\n  "))
		return
	}
	if len(added) > 0 {
		if *updateSchema {
			writeFieldRecord(t, path, cur)
			return
		}
		t.Errorf("new fields not recorded in %s (an added field needs no bump): run go test ./cmd -update-schema:\n  %s", path, strings.Join(added, "\n  "))
	}
}

// diffFields: the recorded lines missing now, and the new lines.
func diffFields(rec, cur []string) (gone, added []string) {
	have := map[string]bool{}
	for _, l := range cur {
		have[l] = true
	}
	was := map[string]bool{}
	for _, l := range rec {
		was[l] = true
		if !have[l] {
			gone = append(gone, l)
		}
	}
	for _, l := range cur {
		if !was[l] {
			added = append(added, l)
		}
	}
	return gone, added
}

func writeFieldRecord(t *testing.T, path string, lines []string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The record check itself: a renamed field, a changed type and a field
// that became optional are "gone" (a bump); an added field is not.
func TestFieldRecordCatchesChanges(t *testing.T) {
	rec := []string{"k .a type=\"string\" required", "k .b type=\"integer\" optional"}
	for _, tc := range []struct {
		name        string
		cur         []string
		gone, added int
	}{
		{"same", rec, 0, 0},
		{"renamed", []string{"k .a2 type=\"string\" required", rec[1]}, 1, 1},
		{"retyped", []string{rec[0], "k .b type=\"string\" optional"}, 1, 1},
		{"now optional", []string{"k .a type=\"string\" optional", rec[1]}, 1, 1},
		{"removed", rec[:1], 1, 0},
		{"added", append(append([]string{}, rec...), "k .c type=\"boolean\" optional"), 0, 1},
	} {
		gone, added := diffFields(rec, tc.cur)
		if len(gone) != tc.gone || len(added) != tc.added {
			t.Errorf("%s: gone %v added %v, want %d gone and %d added", tc.name, gone, added, tc.gone, tc.added)
		}
	}
}
