package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"strconv"
	"testing"
)

// Suggested SQL is written by the wire contract (package doris: its
// templates and its one quoting, QuoteIdent / QuoteLiteral), never
// assembled in diag or report (issue 19 item 5). A statement that diag
// builds itself — fmt.Sprintf with a format that starts a statement, or a
// string concatenation with a value in it whose literal part starts one —
// is how an unquoted user name got into a printed statement. A literal that
// stays a literal (a declaration's Confirm/Fix prose with DB, <mv>
// placeholders, a concatenation of literals) is not built and is left alone.

// sqlStart: a literal's text that starts a statement — at its beginning, or
// after a line break, a ';' or a '(' — with one of the statement keywords.
var sqlStart = regexp.MustCompile(`(?:^|[\n;(])\s*(?:ALTER|SHOW|SELECT|ADMIN|REFRESH|RESUME|PAUSE|DROP|CREATE|SET|CANCEL|RECOVER|INSERT|GRANT|REVOKE|KILL|TRUNCATE|DELETE|UPDATE)[\s(]`)

// sprintfs are the fmt functions whose first argument is a format.
var sprintfs = map[string]bool{"Sprintf": true, "Errorf": true, "Fprintf": true, "Printf": true, "Appendf": true}

// builtSQL lists, in one Go source file, the statements built outside the
// contract: a fmt.Sprintf whose format starts a statement and has a verb, and
// a + chain with a non-literal operand and a literal operand that starts a
// statement.
func builtSQL(fset *token.FileSet, f *ast.File) []string {
	fmtName := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == "fmt" {
			fmtName = "fmt"
			if imp.Name != nil {
				fmtName = imp.Name.Name
			}
		}
	}
	var bad []string
	flag := func(pos token.Pos, how, text string) {
		bad = append(bad, fmt.Sprintf("%s: %s %q (use a doris template)", fset.Position(pos), how, text))
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch e := n.(type) {
		case *ast.CallExpr:
			sel, ok := e.Fun.(*ast.SelectorExpr)
			if !ok || fmtName == "" || !sprintfs[sel.Sel.Name] {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); !ok || id.Name != fmtName {
				return true
			}
			arg := 0
			if sel.Sel.Name == "Fprintf" || sel.Sel.Name == "Appendf" {
				arg = 1
			}
			if len(e.Args) <= arg+1 {
				return true // no value is formatted in
			}
			if s, ok := stringLit(e.Args[arg]); ok && sqlStart.MatchString(s) {
				flag(e.Pos(), "fmt."+sel.Sel.Name+" builds", s)
			}
		case *ast.BinaryExpr:
			if e.Op != token.ADD {
				return true
			}
			ops := flattenAdd(e)
			lits, values := []ast.Expr{}, 0
			for _, op := range ops {
				if _, ok := stringLit(op); ok {
					lits = append(lits, op)
				} else {
					values++
				}
			}
			if values > 0 {
				for _, l := range lits {
					if s, _ := stringLit(l); sqlStart.MatchString(s) {
						flag(l.Pos(), "concatenation builds", s)
						break // one report a chain
					}
				}
			}
			return false // the chain's inner + are the same chain
		}
		return true
	})
	return bad
}

// flattenAdd is the operands of a chain a + b + c (parentheses kept as one
// operand unless they are a + chain themselves).
func flattenAdd(e ast.Expr) []ast.Expr {
	switch x := e.(type) {
	case *ast.BinaryExpr:
		if x.Op == token.ADD {
			return append(flattenAdd(x.X), flattenAdd(x.Y)...)
		}
	case *ast.ParenExpr:
		return flattenAdd(x.X)
	}
	return []ast.Expr{e}
}

func stringLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// TestNoSQLBuiltOutsideDoris: no non-test file of diag/... or report/...
// builds a statement (builtSQL).
func TestNoSQLBuiltOutsideDoris(t *testing.T) {
	report(t, "suggested SQL is built by package doris", sourceRule(t, builtSQL, "diag", "report"))
}

// TestBuiltSQLCatchesViolations: the forms main had before the templates
// (issue 19 item 5) are caught; prose and literal-only text are not.
func TestBuiltSQLCatchesViolations(t *testing.T) {
	for _, c := range []struct {
		src  string
		want int
	}{
		{"fmt.Sprintf(`ADMIN SET FRONTEND CONFIG (\"%s\" = \"%d\");`, key, n)", 1},
		{`fmt.Sprintf("ALTER MATERIALIZED VIEW %s REFRESH ON SCHEDULE EVERY %d SECOND;", name, n)`, 1},
		{`"ALTER TABLE " + qualified + " SET (\"" + prop + "\" = \"<seconds>\")"`, 1},
		{`"GRANT " + priv + "_PRIV ON *.*.* TO USER"`, 1},
		{`"see: " + ("SELECT * FROM t WHERE x = " + v)`, 1},
		{`"run this;\nDROP STREAM " + name`, 1},
		{`f("x", "SHOW FRONTENDS;")`, 0},
		{`"SELECT a FROM t " + "WHERE b = 1"`, 0},
		{`fmt.Sprintf("%d versions", n)`, 0},
		{`"raise " + prop + " on " + table`, 0},
		{`fmt.Sprintf("SELECT nothing formatted")`, 0},
		{`doris.SetFrontendConfig(key, v)`, 0},
	} {
		src := "package diag\nimport \"fmt\"\nvar _ = fmt.Sprint\nfunc f(args ...any) string { return \"\" }\nvar x = " + c.src
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "x.go", src, 0)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		if got := builtSQL(fset, f); len(got) != c.want {
			t.Errorf("builtSQL(%s) = %v, want %d", c.src, got, c.want)
		}
	}
}
