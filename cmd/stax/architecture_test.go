package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The tests of this file hold docs/architecture.md to the code, as
// TestDocsCLIMatchesHelp holds docs/cli to --help: its map of the
// repository, the Go names it cites, the jobs of pkg/workflow it lists,
// and the claims it makes of who imports and calls what.

const modulePath = "github.com/stax-dev/stax/"

// goPackage is one package of the repository, as its non-test files
// declare it.
type goPackage struct {
	dir     string          // from the root, with slashes: "pkg/install"
	name    string          // its package clause
	imports map[string]bool // the packages of the repository it imports, by dir
	decls   map[string]bool // "Name" at top level, "Type.Member" for methods and fields
	files   []*ast.File
}

// goFiles are the .go files of the module, its tests' included: those
// of every directory but testdata and hidden ones, as the go command
// sees them.
func goFiles(t *testing.T) []string {
	t.Helper()
	root := filepath.Join("..", "..")
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// repoCode reads every Go package of the repository: each directory
// holding a non-test .go file, but testdata and hidden ones.
func repoCode(t *testing.T) map[string]*goPackage {
	t.Helper()
	root := filepath.Join("..", "..")
	pkgs := map[string]*goPackage{}
	fset := token.NewFileSet()
	for _, p := range goFiles(t) {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		rel, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.ToSlash(rel)
		pkg := pkgs[dir]
		if pkg == nil {
			pkg = &goPackage{dir: dir, name: f.Name.Name, imports: map[string]bool{}, decls: map[string]bool{}}
			pkgs[dir] = pkg
		}
		pkg.files = append(pkg.files, f)
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); strings.HasPrefix(path, modulePath) {
				pkg.imports[strings.TrimPrefix(path, modulePath)] = true
			}
		}
		declare(pkg.decls, f)
	}
	return pkgs
}

// bannedImports are the packages no file of the module, test or not,
// imports, each with why and what to use instead.
var bannedImports = map[string]string{
	"gopkg.in/yaml.v3": "it is unmaintained; stax reads and writes YAML with one library, its maintained successor go.yaml.in/yaml/v3, " +
		"so that one parser gives the lines and errors pkg/yamlerr translates and one encoder writes stax.lock",
	"golang.org/x/crypto/x509roots/fallback": "its init parses every root it holds at each start (3.5 ms of it), where most commands make no TLS request; " +
		"cmd/stax trusts the same roots, from golang.org/x/crypto/x509roots/fallback/bundle, before its first TLS request (trustFallbackRoots)",
}

// No file of the module imports a banned package.
func TestNoBannedImports(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	for _, p := range goFiles(t) {
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if why, ok := bannedImports[path]; ok {
				rel, _ := filepath.Rel(root, p)
				t.Errorf("%s:%d imports %s: %s", filepath.ToSlash(rel), fset.Position(imp.Pos()).Line, path, why)
			}
		}
	}
}

// declare adds what f declares to decls.
func declare(decls map[string]bool, f *ast.File) {
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				decls[d.Name.Name] = true
			} else {
				decls[receiverType(d)+"."+d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					decls[s.Name.Name] = true
					if st, ok := s.Type.(*ast.StructType); ok {
						for _, field := range st.Fields.List {
							for _, n := range field.Names {
								decls[s.Name.Name+"."+n.Name] = true
							}
						}
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						decls[n.Name] = true
					}
				}
			}
		}
	}
}

// receiverType is the name of the type a method is declared on.
func receiverType(d *ast.FuncDecl) string {
	typ := d.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	switch x := typ.(type) {
	case *ast.IndexExpr:
		typ = x.X
	case *ast.IndexListExpr:
		typ = x.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// architecture is docs/architecture.md, its fenced blocks apart from its
// prose, the prose's runs of white space made one space.
func architecture(t *testing.T) (prose string, blocks []string) {
	t.Helper()
	parts := strings.Split(repoFile(t, "docs/architecture.md"), "```")
	for i, part := range parts {
		if i%2 == 1 {
			blocks = append(blocks, part)
		} else {
			prose += " " + part
		}
	}
	return strings.Join(strings.Fields(prose), " "), blocks
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

// spans are the code spans of text.
func spans(text string) []string {
	var out []string
	for _, m := range codeSpan.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

// The map of the repository names every Go package, and everything it
// names is there.
func TestDocsArchitectureMapsEveryPackage(t *testing.T) {
	t.Parallel()
	_, blocks := architecture(t)
	var layout string
	for _, b := range blocks {
		if strings.Contains(b, "\npkg/workflow ") {
			layout = b
		}
	}
	if layout == "" {
		t.Fatal("docs/architecture.md has no map of the repository (a block with a pkg/workflow line)")
	}
	mapped := map[string]bool{}
	for _, line := range strings.Split(layout, "\n") {
		if line == "" || line[0] == ' ' {
			continue
		}
		// An entry is the line's first word, and the next while a comma
		// ends one: "action.yml, action/".
		for _, word := range strings.Fields(line) {
			mapped[strings.TrimSuffix(strings.TrimSuffix(word, ","), "/")] = true
			if !strings.HasSuffix(word, ",") {
				break
			}
		}
	}
	for dir := range repoCode(t) {
		if !mapped[dir] {
			t.Errorf("docs/architecture.md's map of the repository leaves out the package %s", dir)
		}
	}
	for entry := range mapped {
		if _, err := os.Stat(filepath.Join("..", "..", filepath.FromSlash(entry))); err != nil {
			t.Errorf("docs/architecture.md's map of the repository names %s, which is not there", entry)
		}
	}
}

// fileLike are the extensions of the files the prose names as `x.ext`,
// which are no Go names.
var fileLike = map[string]bool{"go": true, "md": true, "yaml": true, "yml": true, "lock": true, "json": true, "sh": true, "1": true}

// Every Go name, test and file of the repository the prose cites in code
// is there: `install.LockProject`, `cache.Packages.LockStore`,
// `Env.resolveTrusted`, `TestDocsCLIMatchesHelp`, `cmd/stax/factory.go`.
func TestDocsArchitectureNamesWhatExists(t *testing.T) {
	t.Parallel()
	prose, _ := architecture(t)
	pkgs := repoCode(t)
	byName, types := map[string][]*goPackage{}, map[string][]*goPackage{}
	for _, p := range pkgs {
		byName[p.name] = append(byName[p.name], p)
		for d := range p.decls {
			if !strings.Contains(d, ".") {
				types[d] = append(types[d], p)
			}
		}
	}
	tests := testNames(t)
	goName := regexp.MustCompile(`^[A-Za-z_]\w*(\.[A-Za-z_]\w*){1,2}$`)
	for _, span := range spans(prose) {
		switch {
		case strings.HasPrefix(span, "Test") && !strings.ContainsAny(span, " ."):
			if !tests[span] {
				t.Errorf("docs/architecture.md cites %s, which no test is", span)
			}
		case goName.MatchString(span) && !fileLike[path.Ext(span)[1:]]:
			first, rest, _ := strings.Cut(span, ".")
			switch {
			case len(byName[first]) > 0:
				if !slices.ContainsFunc(byName[first], func(p *goPackage) bool { return p.decls[rest] }) {
					t.Errorf("docs/architecture.md cites %s, which package %s does not declare", span, first)
				}
			case len(types[first]) > 0:
				if !slices.ContainsFunc(types[first], func(p *goPackage) bool { return p.decls[span] }) {
					t.Errorf("docs/architecture.md cites %s, which no package declares", span)
				}
			}
		case strings.Contains(span, "/") && repoPath(span):
			base := strings.TrimSuffix(path.Base(span), path.Ext(span))
			if strings.ToUpper(base) == base && strings.Trim(base, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == "" {
				continue // a placeholder: cmd/stax/JOB.go
			}
			if m, _ := filepath.Glob(filepath.Join("..", "..", filepath.FromSlash(strings.TrimSuffix(span, "/")))); len(m) == 0 {
				t.Errorf("docs/architecture.md cites %s, which is not in the repository", span)
			}
		}
	}
}

// repoPath says whether span is a path in the repository.
func repoPath(span string) bool {
	first, _, _ := strings.Cut(span, "/")
	switch first {
	case "cmd", "pkg", "internal", "layers", "docs", "test", "bench", "testdata", "examples", "action":
		return true
	}
	return false
}

var testFunc = regexp.MustCompile(`(?m)^func (Test\w+)\(`)

// testNames are the tests of the repository.
func testNames(t *testing.T) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && p != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if err != nil || !strings.HasSuffix(p, "_test.go") {
			return err
		}
		data, err := os.ReadFile(p)
		for _, m := range testFunc.FindAllStringSubmatch(string(data), -1) {
			names[m[1]] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// The prose lists every job of pkg/workflow, a function taking a context
// and an *Env, and no other.
func TestDocsArchitectureListsEveryJob(t *testing.T) {
	t.Parallel()
	prose, _ := architecture(t)
	_, list, ok := strings.Cut(prose, "one entry point per user job:")
	if !ok {
		t.Fatal(`docs/architecture.md lists no jobs ("one entry point per user job: ...")`)
	}
	list, _, _ = strings.Cut(list, ". ")
	listed := map[string]bool{}
	for _, name := range spans(list) {
		listed[name] = true
	}
	jobs := map[string]bool{}
	for _, f := range repoCode(t)["pkg/workflow"].files {
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.IsExported() && isJob(fn.Type) {
				jobs[fn.Name.Name] = true
			}
		}
	}
	for job := range jobs {
		if !listed[job] {
			t.Errorf("docs/architecture.md leaves out the job workflow.%s", job)
		}
	}
	for name := range listed {
		if !jobs[name] {
			t.Errorf("docs/architecture.md lists %s, which is no job of pkg/workflow (func(ctx, *Env, ...))", name)
		}
	}
}

// isJob says whether a function takes a context.Context, then an *Env.
func isJob(fn *ast.FuncType) bool {
	var params []ast.Expr
	for _, field := range fn.Params.List {
		for range max(1, len(field.Names)) {
			params = append(params, field.Type)
		}
	}
	if len(params) < 2 {
		return false
	}
	ctx, ok := params[0].(*ast.SelectorExpr)
	env, ok2 := params[1].(*ast.StarExpr)
	if !ok || !ok2 {
		return false
	}
	x, _ := ctx.X.(*ast.Ident)
	id, _ := env.X.(*ast.Ident)
	return x != nil && x.Name == "context" && ctx.Sel.Name == "Context" && id != nil && id.Name == "Env"
}

var (
	// "`pkg/mcpserver` depends on none of `pkg/workflow`, `pkg/resolve` and `pkg/trust`"
	dependsOnNone = regexp.MustCompile("`([\\w/]+)` depends on none of ((?:`[\\w/]+`(?:, | and | or |, and |, or ))*`[\\w/]+`)")
	// "only `cmd/stax` imports `pkg/exitcode`"
	onlyImports = regexp.MustCompile("[Oo]nly `([\\w/]+)` imports `([\\w/]+)`")
	// "`resolve.Resolve` is called only from `Env.resolveTrusted` and `Env.resolveSources`"
	calledOnlyFrom = regexp.MustCompile("`(\\w+)\\.(\\w+)` is called only from ([^.]*(?:\\.\\w[^.]*)*)\\.(?: |$)")
)

// What the prose says of who depends on, imports and calls what holds:
// "`A` depends on none of `B`, `C`" (not even through another package),
// "only `A` imports `B`", "`pkg.Func` is called only from `X`, `Y`".
func TestDocsArchitectureClaimsHold(t *testing.T) {
	t.Parallel()
	prose, _ := architecture(t)
	pkgs := repoCode(t)
	for _, m := range dependsOnNone.FindAllStringSubmatch(prose, -1) {
		if pkgs[m[1]] == nil {
			t.Errorf("docs/architecture.md says %s depends on none of ..., but there is no package %s", m[1], m[1])
			continue
		}
		deps := dependencies(pkgs, m[1])
		for _, dep := range spans(m[2]) {
			if pkgs[dep] == nil {
				t.Errorf("docs/architecture.md says %s depends on no %s, which is no package", m[1], dep)
			} else if deps[dep] {
				t.Errorf("docs/architecture.md says %s depends on no %s, yet it does", m[1], dep)
			}
		}
	}
	var exitCodes bool
	for _, m := range onlyImports.FindAllStringSubmatch(prose, -1) {
		exitCodes = exitCodes || m[1] == "cmd/stax" && m[2] == "pkg/exitcode"
		if pkgs[m[2]] == nil {
			t.Errorf("docs/architecture.md says only %s imports %s, which is no package", m[1], m[2])
		}
		for dir, p := range pkgs {
			if p.imports[m[2]] && dir != m[1] {
				t.Errorf("docs/architecture.md says only %s imports %s, yet %s does", m[1], m[2], dir)
			}
		}
	}
	if !exitCodes {
		t.Error("docs/architecture.md does not say that only `cmd/stax` imports `pkg/exitcode`")
	}
	for _, m := range calledOnlyFrom.FindAllStringSubmatch(prose, -1) {
		callers := callersOf(pkgs, m[1], m[2])
		named := spans(m[3])
		for _, c := range callers {
			if !slices.ContainsFunc(named, func(n string) bool { return slices.Contains(c, n) }) {
				t.Errorf("docs/architecture.md says %s.%s is called only from %s, yet %s calls it", m[1], m[2], strings.Join(named, ", "), c[0])
			}
		}
		for _, n := range named {
			if !slices.ContainsFunc(callers, func(c []string) bool { return slices.Contains(c, n) }) {
				t.Errorf("docs/architecture.md says %s calls %s.%s, which it does not", n, m[1], m[2])
			}
		}
	}
}

// dependencies are the packages of the repository dir imports, directly
// or through others.
func dependencies(pkgs map[string]*goPackage, dir string) map[string]bool {
	seen := map[string]bool{}
	var visit func(string)
	visit = func(d string) {
		for imp := range pkgs[d].imports {
			if !seen[imp] && pkgs[imp] != nil {
				seen[imp] = true
				visit(imp)
			}
		}
	}
	visit(dir)
	return seen
}

// callersOf are the functions of stax whose bodies (their closures
// included) call the function name of the package named pkg, each by the
// ways the prose may write it: "install.Stage", or "Env.resolveTrusted"
// and "workflow.Env.resolveTrusted". The packages that serve tests
// (internal/packagetest, ...) are not stax's.
func callersOf(pkgs map[string]*goPackage, pkg, name string) [][]string {
	var out [][]string
	for _, p := range pkgs {
		if strings.HasSuffix(p.dir, "test") {
			continue
		}
		for _, f := range p.files {
			local := importName(f, pkg)
			for _, d := range f.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || fn.Body == nil || !calls(fn.Body, local, name, p.name == pkg) {
					continue
				}
				if fn.Recv == nil {
					out = append(out, []string{p.name + "." + fn.Name.Name})
				} else {
					m := receiverType(fn) + "." + fn.Name.Name
					out = append(out, []string{m, p.name + "." + m})
				}
			}
		}
	}
	return out
}

// importName is the name f refers to the repository's package named pkg
// by, or "" when it does not import it.
func importName(f *ast.File, pkg string) string {
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if !strings.HasPrefix(p, modulePath) || path.Base(p) != pkg {
			continue
		}
		if imp.Name != nil {
			return imp.Name.Name
		}
		return pkg
	}
	return ""
}

// calls says whether body calls pkgName.name, or name itself when it is
// in that package (within).
func calls(body *ast.BlockStmt, pkgName, name string, within bool) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		switch fun := call.Fun.(type) {
		case *ast.SelectorExpr:
			x, ok := fun.X.(*ast.Ident)
			found = ok && pkgName != "" && x.Name == pkgName && fun.Sel.Name == name
		case *ast.Ident:
			found = within && fun.Name == name
		}
		return !found
	})
	return found
}
