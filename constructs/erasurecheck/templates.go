// Package erasurecheck checks what a CDK app will deploy for every SQS queue
// subscribed to the erasure topic, however the store was built (with
// erasure.ErasureSubscriber, by hand, with another construct library): it
// reads the synthesized templates, finds every subscription to the erasure
// topic, and refuses the wiring that breaks the channel's caps or that would
// deploy cleanly and then fail or silently lose requests. Add it to an app in
// one line:
//
//	awscdk.Validations_Of(app).AddPlugins(erasurecheck.NewPlugin(erasurecheck.Config{}))
//
// It reads templates, not constructs, so what it judges is exactly what
// CloudFormation will deploy: L1 resources, escape hatches, property
// overrides and nested stacks included.
package erasurecheck

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/timing"
	"github.com/linn-cloud/erasure-channel/internal/bounded"
)

// TopicMetadataKey marks the erasure topic in a template (ErasureChannel
// sets it), so subscriptions to it are found by reference, import or ARN.
const TopicMetadataKey = "erasure:topic"

// RosterMetadataKey marks the response queue with the roster's store names
// (ErasureChannel sets it).
const RosterMetadataKey = "erasure:roster"

// cdkAssetPathKey is the metadata CDK writes on a nested stack's
// AWS::CloudFormation::Stack resource: its template's file in the assembly.
const cdkAssetPathKey = "aws:asset:path"

// ErrNoTemplates is returned for a directory or file list holding no template.
var ErrNoTemplates = errors.New("erasurecheck: no templates: synthesize first")

// StoreSpec is one store's name and timing settings as deployed.
type StoreSpec struct {
	Name     string
	Settings timing.Store
}

// resource is one template resource.
type resource struct {
	Type       string
	Properties map[string]any
	Metadata   map[string]any
	Condition  string // the template condition the resource is created under, "" for always
}

type output struct {
	Value  any
	Export struct{ Name any }
}

// template is one stack's template.
type template struct {
	Stack      string // the stack's name; parent/NestedStackId for a nested stack
	Path       string // the template file
	Account    string // from the cloud assembly's manifest, "" if unknown
	Region     string
	Resources  map[string]resource
	Outputs    map[string]output
	Parameters map[string]any
	Conditions map[string]any

	parent       *template      // the stack that nests this one
	parentParams map[string]any // the Parameters the parent passes in

	sortedIDs []string               // ids(), once
	roleStmts map[string][]statement // roleStatements, once per role
	patterns  map[patternKey]string  // resourcePattern, once per value
}

// assembly is every template the check reads, nested stacks included.
type assembly struct {
	// params are the parameter values the check was given (Config.Parameters),
	// over each parameter's Default.
	params map[string]string
	// assume decides conditions the values leave unknown, for one run of a
	// store's rules under one deploy (checkBranches).
	assume    map[*template]map[string]bool
	templates []*template
	exports   map[string]exported          // export name -> the template and value that export it
	assets    map[string]map[string]string // directory -> asset object key -> source file
}

type exported struct {
	t     *template
	value any
}

// stackFile is one template to read and the environment it deploys to.
type stackFile struct {
	path, account, region string
}

// readAssembly reads the templates at paths (with the manifest beside them
// for each stack's account and region) and every nested stack they name.
func readAssembly(paths []string) (*assembly, error) {
	envs := map[string][2]string{}
	dirs := map[string]bool{}
	for _, p := range paths {
		if d := filepath.Dir(p); !dirs[d] {
			dirs[d] = true
			readManifestEnvs(d, envs)
		}
	}
	files := make([]stackFile, 0, len(paths))
	for _, p := range paths {
		env := envs[p]
		files = append(files, stackFile{path: p, account: env[0], region: env[1]})
	}
	return readFiles(files)
}

func readFiles(files []stackFile) (*assembly, error) {
	if len(files) == 0 {
		return nil, ErrNoTemplates
	}
	sort.Slice(files, func(i, j int) bool { return files[i].path < files[j].path })
	a := &assembly{exports: map[string]exported{}}
	for _, f := range files {
		t, err := readTemplate(f.path)
		if err != nil {
			return nil, err
		}
		t.Stack = stackName(f.path)
		t.Account, t.Region = f.account, f.region
		if err := a.add(t, 0); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// Limits of what the check reads, each with its reason. A file past its limit,
// a path out of its assembly, a file that is not a regular one, a cycle:
// each is an error naming the file and the limit, never its content.
const (
	// maxTemplateBytes: 16 times CloudFormation's own limit on a template
	// (1,000,000 bytes through S3), room for YAML's comments and layout.
	maxTemplateBytes = 16 << 20
	// maxManifestBytes bounds manifest.json and *.assets.json files.
	maxManifestBytes = 16 << 20
	// maxTemplates bounds the templates of one assembly, nested stacks
	// included: CloudFormation's default quota is 2,000 stacks an account.
	maxTemplates = 10000
)

// maxNesting bounds nested stacks inside nested stacks (CloudFormation's own
// limit is far lower in practice); it also stops a template naming itself.
const maxNesting = 16

// add adds t and, recursively, the nested stacks whose templates lie beside it.
func (a *assembly) add(t *template, depth int) error {
	a.templates = append(a.templates, t)
	for _, o := range t.Outputs {
		if n, ok := o.Export.Name.(string); ok {
			a.exports[n] = exported{t, o.Value}
		}
	}
	if len(a.templates) > maxTemplates {
		return fmt.Errorf("erasurecheck: more than %d templates, nested stacks included", maxTemplates)
	}
	for _, id := range t.ids() {
		r := t.Resources[id]
		if r.Type != "AWS::CloudFormation::Stack" {
			continue
		}
		file, _ := r.Metadata[cdkAssetPathKey].(string)
		if file == "" { // asset metadata is off outside the CDK CLI: find the template by its asset's object key
			file = a.assetSource(filepath.Dir(t.Path), r.Properties["TemplateURL"])
		}
		if file == "" {
			continue // a nested stack whose template is not in this assembly
		}
		p, err := bounded.Within(filepath.Dir(t.Path), file)
		if err != nil {
			return fmt.Errorf("erasurecheck: nested stack %s of %s names a template that %w", id, filepath.Base(t.Path), err)
		}
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		for anc := t; anc != nil; anc = anc.parent {
			if filepath.Clean(anc.Path) == filepath.Clean(p) {
				return fmt.Errorf("erasurecheck: nested stack %s of %s nests its own template (a cycle)", id, filepath.Base(t.Path))
			}
		}
		if depth+1 > maxNesting {
			return fmt.Errorf("erasurecheck: nested stacks deeper than %d under %s", maxNesting, filepath.Base(t.Path))
		}
		n, err := readTemplate(p)
		if err != nil {
			return err
		}
		n.Stack, n.Account, n.Region = t.Stack+"/"+id, t.Account, t.Region
		n.parent = t
		n.parentParams, _ = r.Properties["Parameters"].(map[string]any)
		if err := a.add(n, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// assetSource is the file in dir of the asset whose object key ends the
// template URL v (a nested stack's TemplateURL), from the assembly's
// *.assets.json manifests; "" if none.
func (a *assembly) assetSource(dir string, v any) string {
	if a.assets == nil {
		a.assets = map[string]map[string]string{}
	}
	keys, ok := a.assets[dir]
	if !ok {
		keys = map[string]string{}
		files, _ := filepath.Glob(filepath.Join(dir, "*.assets.json"))
		for _, f := range files {
			b, err := bounded.ReadFile(f, maxManifestBytes)
			if err != nil {
				continue // an asset manifest that cannot be read names no template
			}
			var m struct {
				Files map[string]struct {
					Source       struct{ Path string }
					Destinations map[string]struct{ ObjectKey string }
				}
			}
			if json.Unmarshal(b, &m) != nil {
				continue
			}
			for _, fa := range m.Files {
				for _, d := range fa.Destinations {
					keys[d.ObjectKey] = fa.Source.Path
				}
			}
		}
		a.assets[dir] = keys
	}
	for _, s := range allStrings(v) {
		if i := strings.LastIndex(s, "/"); i >= 0 {
			if src, ok := keys[s[i+1:]]; ok {
				return src
			}
		}
	}
	return ""
}

// allStrings lists every string inside a CloudFormation value.
func allStrings(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, allStrings(e)...)
		}
		return out
	case map[string]any:
		var out []string
		for _, k := range sortedKeys(x) {
			out = append(out, allStrings(x[k])...)
		}
		return out
	}
	return nil
}

// readTemplate reads one template file, JSON or YAML.
func readTemplate(path string) (*template, error) {
	b, err := bounded.ReadFile(path, maxTemplateBytes)
	if err != nil {
		return nil, fmt.Errorf("erasurecheck: %w", err)
	}
	doc, err := decodeTemplate(b, path)
	if err != nil {
		return nil, err
	}
	t := &template{Path: path, Resources: map[string]resource{}, Outputs: map[string]output{}}
	t.Parameters, _ = doc["Parameters"].(map[string]any)
	t.Conditions, _ = doc["Conditions"].(map[string]any)
	res, _ := doc["Resources"].(map[string]any)
	for id, v := range res {
		m, _ := v.(map[string]any)
		r := resource{}
		r.Type, _ = m["Type"].(string)
		r.Properties, _ = m["Properties"].(map[string]any)
		r.Metadata, _ = m["Metadata"].(map[string]any)
		r.Condition, _ = m["Condition"].(string)
		if r.Properties == nil {
			r.Properties = map[string]any{}
		}
		t.Resources[id] = r
	}
	outs, _ := doc["Outputs"].(map[string]any)
	for id, v := range outs {
		m, _ := v.(map[string]any)
		o := output{Value: m["Value"]}
		if e, ok := m["Export"].(map[string]any); ok {
			o.Export.Name = e["Name"]
		}
		t.Outputs[id] = o
	}
	return t, nil
}

// decodeTemplate decodes a JSON template; YAML is read by decodeYAML.
func decodeTemplate(b []byte, path string) (map[string]any, error) {
	var doc map[string]any
	trimmed := strings.TrimSpace(string(b))
	if strings.HasPrefix(trimmed, "{") {
		if err := json.Unmarshal(b, &doc); err != nil {
			return nil, fmt.Errorf("erasurecheck: %s is not a JSON template", filepath.Base(path))
		}
	} else {
		var err error
		if doc, err = decodeYAML(b, path); err != nil {
			return nil, err
		}
	}
	if _, ok := doc["Resources"].(map[string]any); !ok {
		return nil, fmt.Errorf("erasurecheck: %s is not a CloudFormation template (no Resources)", filepath.Base(path))
	}
	return doc, nil
}

func stackName(path string) string {
	base := filepath.Base(path)
	for _, suffix := range []string{".template.json", ".template.yaml", ".template.yml", ".json", ".yaml", ".yml", ".template"} {
		if strings.HasSuffix(base, suffix) {
			return strings.TrimSuffix(base, suffix)
		}
	}
	return base
}

// manifest is the part of a cloud assembly's manifest.json the check reads.
type manifest struct {
	Artifacts map[string]struct {
		Type        string
		Environment string
		Properties  struct {
			TemplateFile  string
			DirectoryName string
		}
	}
}

func readManifest(dir string) (*manifest, bool) {
	m, err := readManifestErr(dir)
	return m, err == nil && m != nil
}

// readManifestErr reads dir's manifest.json: nil, nil when there is none;
// an error when there is one that cannot be read (too large, not a regular
// file) or decoded.
func readManifestErr(dir string) (*manifest, error) {
	path := filepath.Join(dir, "manifest.json")
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	b, err := bounded.ReadFile(path, maxManifestBytes)
	if err != nil {
		return nil, fmt.Errorf("erasurecheck: %w", err)
	}
	var m manifest
	if json.Unmarshal(b, &m) != nil {
		return nil, fmt.Errorf("erasurecheck: %s/manifest.json is not a cloud assembly manifest", filepath.Base(dir))
	}
	return &m, nil
}

// readManifestEnvs maps template paths in dir to their stack's account and region.
func readManifestEnvs(dir string, out map[string][2]string) {
	m, ok := readManifest(dir)
	if !ok {
		return
	}
	for _, a := range m.Artifacts {
		if a.Type != "aws:cloudformation:stack" {
			continue
		}
		env := strings.TrimPrefix(a.Environment, "aws://")
		if acct, region, ok := strings.Cut(env, "/"); ok && !strings.HasPrefix(acct, "unknown") {
			if strings.HasPrefix(region, "unknown") {
				region = ""
			}
			if p, err := bounded.Within(dir, a.Properties.TemplateFile); err == nil {
				out[p] = [2]string{acct, region}
			}
		}
	}
}

// TemplatePaths lists the top-level templates of a cloud assembly directory
// and of every nested assembly (CDK stages) in it. Nested stacks are read
// from their parents.
func TemplatePaths(dir string) ([]string, error) {
	var out []string
	if err := assemblyTemplates(dir, 0, map[string]bool{}, &out); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w (in %s)", ErrNoTemplates, filepath.Base(dir))
	}
	sort.Strings(out)
	return out, nil
}

// assemblyTemplates lists the templates of the assembly in dir and of the
// nested assemblies it names, each read once (a nested assembly naming an
// assembly already read, "." say, is a cycle), every path inside dir.
func assemblyTemplates(dir string, depth int, seen map[string]bool, out *[]string) error {
	key, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("erasurecheck: %s cannot be read", filepath.Base(dir))
	}
	if real, err := filepath.EvalSymlinks(key); err == nil {
		key = real
	}
	if seen[key] {
		return fmt.Errorf("erasurecheck: the cloud assembly %s names itself as a nested assembly", filepath.Base(dir))
	}
	seen[key] = true
	m, err := readManifestErr(dir)
	if err != nil {
		return err
	}
	if m == nil {
		files, _ := filepath.Glob(filepath.Join(dir, "*.template.json"))
		for _, f := range files {
			if !strings.HasSuffix(f, ".nested.template.json") {
				*out = append(*out, f)
			}
		}
		return nil
	}
	for _, id := range sortedKeys(m.Artifacts) {
		a := m.Artifacts[id]
		switch a.Type {
		case "aws:cloudformation:stack":
			if a.Properties.TemplateFile != "" {
				p, err := bounded.Within(dir, a.Properties.TemplateFile)
				if err != nil {
					return fmt.Errorf("erasurecheck: the manifest of %s names a template that %w", filepath.Base(dir), err)
				}
				*out = append(*out, p)
			}
		case "cdk:cloud-assembly":
			if a.Properties.DirectoryName == "" {
				continue
			}
			if depth >= maxNesting {
				return fmt.Errorf("erasurecheck: cloud assemblies nested deeper than %d in %s", maxNesting, filepath.Base(dir))
			}
			sub, err := bounded.Within(dir, a.Properties.DirectoryName)
			if err != nil {
				return fmt.Errorf("erasurecheck: the manifest of %s names a nested assembly that %w", filepath.Base(dir), err)
			}
			if err := assemblyTemplates(sub, depth+1, seen, out); err != nil {
				return err
			}
		}
	}
	if len(*out) > maxTemplates {
		return fmt.Errorf("erasurecheck: more than %d templates in %s", maxTemplates, filepath.Base(dir))
	}
	return nil
}

// ReadStores reads every store of a cloud assembly directory: every queue
// subscribed to the erasure topic, with its timing settings as deployed.
func ReadStores(dir string) ([]Store, error) {
	paths, err := TemplatePaths(dir)
	if err != nil {
		return nil, err
	}
	r, err := Check(paths, Config{})
	if err != nil {
		return nil, err
	}
	return r.Stores, nil
}

func sortedIDs(m map[string]resource) []string { return sortedKeys(m) }

// ids are the template's logical ids, sorted (computed once: the checks
// walk them for every store).
func (t *template) ids() []string {
	if t.sortedIDs == nil || len(t.sortedIDs) != len(t.Resources) {
		t.sortedIDs = sortedIDs(t.Resources)
	}
	return t.sortedIDs
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func dig(m map[string]any, keys ...string) any {
	var v any = m
	for _, k := range keys {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[k]
	}
	return v
}

func num(v any, def int) int {
	switch x := v.(type) {
	case float64:
		return int(x)
	case int:
		return x
	case int64:
		return int(x)
	case uint64:
		return int(x)
	case string: // CloudFormation accepts numbers as strings
		if n, err := strconv.Atoi(x); err == nil {
			return n
		}
	}
	return def
}

func isTrue(v any) bool { return v == true || v == "true" }

// refID is the logical id a Ref or Fn::GetAtt points at.
func refID(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return ""
	}
	if r, ok := m["Ref"].(string); ok {
		return r
	}
	switch ga := m["Fn::GetAtt"].(type) {
	case []any:
		if len(ga) > 0 {
			s, _ := ga[0].(string)
			return s
		}
	case string: // the short form's dotted string, Resource.Attribute
		id, _, _ := strings.Cut(ga, ".")
		return id
	}
	return ""
}

func refersTo(v any, id string) bool { return id != "" && refID(v) == id }

// mentions says whether v (any CloudFormation value) refers to id anywhere.
func mentions(v any, id string) bool {
	switch x := v.(type) {
	case map[string]any:
		if refID(x) == id {
			return true
		}
		for _, e := range x {
			if mentions(e, id) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if mentions(e, id) {
				return true
			}
		}
	}
	return false
}

func constantsOr(c *contract.Constants) contract.Constants {
	if c != nil {
		return *c
	}
	return contract.Channel()
}

// CheckPaths checks what a store team hands the CLI: cloud assembly
// directories (any CDK language's cdk.out, nested assemblies and nested
// stacks included) and plain CloudFormation templates in JSON or YAML
// (short-form intrinsics such as !Ref, !GetAtt and !Sub included).
func CheckPaths(paths []string, cfg Config) (*Result, error) {
	files, err := templateFiles(paths)
	if err != nil {
		return nil, err
	}
	return Check(files, cfg)
}

// readPaths reads the templates of cloud assembly directories and template
// files, as CheckPaths takes them.
func readPaths(paths []string) (*assembly, error) {
	files, err := templateFiles(paths)
	if err != nil {
		return nil, err
	}
	return readAssembly(files)
}

// templateFiles expands cloud assembly directories into their templates;
// a file stays itself.
func templateFiles(paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("erasurecheck: %s: no such file or directory", filepath.Base(p))
		}
		if st.IsDir() {
			ts, err := TemplatePaths(p)
			if err != nil {
				return nil, err
			}
			files = append(files, ts...)
			continue
		}
		files = append(files, p)
	}
	return files, nil
}

// ResourceLines maps each resource of a template file to the line its
// logical id stands on (for SARIF and editors); nil if the file cannot be read.
func ResourceLines(path string) map[string]int {
	b, err := bounded.ReadFile(path, maxTemplateBytes)
	if err != nil {
		return nil
	}
	return resourceLines(b)
}
