// Package cfnmodel reads CloudFormation templates as CloudFormation does:
// JSON or YAML (short-form intrinsics included), a cloud assembly's manifest
// and nested assemblies, nested stacks, with every read bounded (size,
// depth, cycles, regular files inside the assembly). Values resolve as
// CloudFormation resolves them at deploy: parameters (their Default, or the
// value a deploy passes), pseudo parameters from the stack's environment,
// Conditions and Fn::If, Fn::ImportValue across the assembly, Fn::Join,
// Fn::Sub, Fn::Select, Fn::Split, Fn::FindInMap, AWS::NoValue, references to
// resources (a queue's URL and its ARN name the same queue), KMS aliases to
// their key. A value only deploy can know (an SSM parameter, another app's
// export, a condition over one) renders as unknown, never as a default.
package cfnmodel

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/linn-cloud/erasure-channel/contract/bounded"
)

// cdkAssetPathKey is the metadata CDK writes on a nested stack's
// AWS::CloudFormation::Stack resource: its template's file in the assembly.
const cdkAssetPathKey = "aws:asset:path"

// ErrNoTemplates is returned for a directory or file list holding no template.
var ErrNoTemplates = errors.New("cfnmodel: no templates: synthesize first")

// Resource is one template resource.
type Resource struct {
	Type       string
	Properties map[string]any
	Metadata   map[string]any
	Condition  string // the template condition the resource is created under, "" for always
	// DeletionPolicy and UpdateReplacePolicy are the resource's attributes
	// as written ("" when absent or not a literal string): Retain means
	// CloudFormation never calls its delete handler on stack deletion,
	// resp. replacement.
	DeletionPolicy, UpdateReplacePolicy string
}

// Output is one template output, and the name it is exported under.
type Output struct {
	Value  any
	Export struct{ Name any }
}

// Template is one stack's template.
type Template struct {
	Stack   string // the stack's name; parent/NestedStackId for a nested stack
	Path    string // the template file
	Account string // from the cloud assembly's manifest, "" if unknown
	Region  string
	// ExecutionRole is the role CloudFormation deploys the stack with, as
	// the cloud assembly's manifest names it (the synthesizer's
	// cloudFormationExecutionRole; ${AWS::Partition} and the like as
	// written), "" when it names none.
	ExecutionRole string
	Resources     map[string]Resource
	Outputs       map[string]Output
	Parameters    map[string]any
	Conditions    map[string]any
	Mappings      map[string]any
	// Transforms are the macros the template declares (Transform):
	// CloudFormation runs them at deploy, before any value resolves.
	Transforms []string
	// Bytes is the template file's size as written: what CloudFormation
	// receives (through S3) and limits.
	Bytes int
	// ConstructPaths maps a resource's logical id to its construct path, from
	// the cloud assembly's metadata (nil for a plain template).
	ConstructPaths map[string]string
	// CheckMetadata are the stack's construct metadata entries of the
	// CheckMetadataPrefix types, from the cloud assembly.
	CheckMetadata []ConstructEntry

	parent       *Template      // the stack that nests this one
	nestedID     string         // its logical id in the parent
	parentParams map[string]any // the Parameters the parent passes in

	raw        map[string]Resource // Resources as decoded, before Resolve
	rawOutputs map[string]Output

	sortedIDs []string              // IDs(), once
	idsByType map[string][]string   // IDsOf's index, rebuilt with sortedIDs
	patterns  map[patternKey]string // Pattern, once per value
}

// Assembly is every template read, nested stacks included, and what values
// are resolved under.
type Assembly struct {
	// Params are the parameter values a deploy passes (erasurectl check
	// --parameter, cdk.json context), over each parameter's Default.
	Params map[string]string
	// Assume decides conditions the values leave unknown, for one judgement
	// under one deploy (every assignment is judged by the caller).
	Assume    map[*Template]map[string]bool
	Templates []*Template
	exports   map[string]exported          // export name -> the template and value that export it
	assets    map[string]map[string]string // directory -> asset object key -> source file
	attached  map[string][]Attachment      // AttachedTo's index, rebuilt after every resolveAll
	aliases   map[string]*aliasIndex       // ByAlias's index, by type
	aliasesOf int                          // how many templates aliases indexes
	byPath    map[string]*Template         // templateAt's index
	byPathOf  int                          // how many templates byPath indexes
}

type exported struct {
	t     *Template
	value any
}

// stackFile is one template to read and the environment it deploys to.
type stackFile struct {
	path, account, region string
	execRole              string // the CloudFormation execution role's ARN, "" when none
	// metadata is the stack's construct metadata the model reads.
	metadata *stackMeta
}

// stackMeta is what the model reads of a stack artifact's construct
// metadata.
type stackMeta struct {
	byID  map[string]map[string]any // AssemblyMetadataPrefix entries, by logical id
	paths map[string]string         // logical id -> construct path
	check []ConstructEntry          // CheckMetadataPrefix entries
}

// ConstructEntry is one construct metadata entry of a cloud assembly and the
// construct path it is recorded on ("Stack/Orders/Queue", no leading slash).
type ConstructEntry struct {
	Path string
	Type string
	Data any
}

// CheckMetadataPrefix begins the types of construct metadata recorded for
// the app-wide check (its acknowledgements), kept on the template as they
// are (Template.CheckMetadata) with the construct path they are on.
const CheckMetadataPrefix = "erasure-check:"

// CDKAcknowledgedRules is the construct metadata type CDK's
// Validations.of(scope).acknowledge records its acknowledgements under
// (aws-cdk-lib's Validations.ACKNOWLEDGED_RULES_METADATA_KEY): data
// {"<plugin>::<rule>": reason}. It is kept with the CheckMetadataPrefix
// entries, for the check to honour the ones of its own rules.
const CDKAcknowledgedRules = "aws:cdk:acknowledged-rules"

// ReadAssembly reads the templates at paths (with the manifest beside them
// for each stack's account and region) and every nested stack they name.
func ReadAssembly(paths []string) (*Assembly, error) {
	envs := map[string][2]string{}
	meta := map[string]*stackMeta{}
	roles := map[string]string{}
	dirs := map[string]bool{}
	for _, p := range paths {
		if d := filepath.Dir(p); !dirs[d] {
			dirs[d] = true
			readManifestEnvs(d, envs, meta, roles)
		}
	}
	files := make([]stackFile, 0, len(paths))
	for _, p := range paths {
		env := envs[p]
		files = append(files, stackFile{path: p, account: env[0], region: env[1], metadata: meta[p], execRole: roles[p]})
	}
	return readFiles(files)
}

// AssemblyMetadataPrefix begins the types of construct metadata (a node's
// metadata, which CDK writes into the cloud assembly beside the template, not
// into it) that the model reads onto the construct's resource, as if the
// template's Metadata held them: data that grows without bound (the
// channel's roster) and must not count against a template's quotas.
const AssemblyMetadataPrefix = "erasure:"

// stackMetadata reads a stack artifact's construct metadata (inline, or its
// additional metadata file): the AssemblyMetadataPrefix entries of each
// resource, by logical id, each resource's construct path, and the
// CheckMetadataPrefix entries.
func stackMetadata(dir string, inline map[string][]metadataEntry, file string) *stackMeta {
	entries := inline
	if file != "" {
		p, err := bounded.Within(dir, file)
		if err != nil {
			return nil
		}
		b, err := bounded.ReadFile(p, MaxManifestBytes)
		if err != nil {
			return nil
		}
		if entries, err = metadataFile(b); err != nil {
			return nil
		}
	}
	out := &stackMeta{byID: map[string]map[string]any{}, paths: map[string]string{}}
	for path, list := range entries {
		id := ""
		for _, e := range list {
			if e.Type == "aws:cdk:logicalId" {
				id, _ = e.Data.(string)
			}
		}
		if id != "" {
			out.paths[id] = strings.TrimPrefix(path, "/")
		}
		for _, e := range list {
			if id != "" && strings.HasPrefix(e.Type, AssemblyMetadataPrefix) {
				if out.byID[id] == nil {
					out.byID[id] = map[string]any{}
				}
				out.byID[id][e.Type] = e.Data
			}
			if strings.HasPrefix(e.Type, CheckMetadataPrefix) || e.Type == CDKAcknowledgedRules {
				out.check = append(out.check, ConstructEntry{Path: strings.TrimPrefix(path, "/"), Type: e.Type, Data: e.Data})
			}
		}
	}
	sort.Slice(out.check, func(i, j int) bool { return out.check[i].Path < out.check[j].Path })
	return out
}

// metadataFile decodes an artifact's additional metadata file (construct
// path → its entries, each {"type", "data"}, as CDK writes them) with
// decodeJSON, the one pass the templates take; anything of another shape is
// refused whole, as encoding/json refuses it (the keys are CDK's exact ones,
// where encoding/json would also take "Type" or "TYPE").
func metadataFile(b []byte) (map[string][]metadataEntry, error) {
	v, err := decodeJSON(b)
	if err != nil {
		return nil, err
	}
	paths, ok := v.(map[string]any)
	if !ok {
		return nil, errJSON
	}
	return metadataEntries(paths)
}

// metadataEntries reads construct path → entries from a decoded object.
func metadataEntries(paths map[string]any) (map[string][]metadataEntry, error) {
	out := make(map[string][]metadataEntry, len(paths))
	for path, l := range paths {
		list, ok := l.([]any)
		if !ok && l != nil {
			return nil, errJSON
		}
		entries := make([]metadataEntry, 0, len(list))
		for _, x := range list {
			e, ok := x.(map[string]any)
			if !ok && x != nil {
				return nil, errJSON
			}
			var me metadataEntry
			if t, ok := e["type"].(string); ok {
				me.Type = t
			} else if e["type"] != nil {
				return nil, errJSON
			}
			me.Data = e["data"]
			entries = append(entries, me)
		}
		out[path] = entries
	}
	return out, nil
}

// metadataEntry is one construct metadata entry of a cloud assembly.
type metadataEntry struct {
	Type string
	Data any
}

func readFiles(files []stackFile) (*Assembly, error) {
	if len(files) == 0 {
		return nil, ErrNoTemplates
	}
	sort.Slice(files, func(i, j int) bool { return files[i].path < files[j].path })
	a := &Assembly{exports: map[string]exported{}}
	for _, f := range files {
		t, err := ReadTemplate(f.path)
		if err != nil {
			return nil, err
		}
		t.Stack = stackName(f.path)
		t.Account, t.Region = f.account, f.region
		t.ExecutionRole = f.execRole
		var byID map[string]map[string]any
		if f.metadata != nil {
			byID, t.ConstructPaths, t.CheckMetadata = f.metadata.byID, f.metadata.paths, f.metadata.check
		}
		for id, m := range byID {
			r, ok := t.Resources[id]
			if !ok {
				continue
			}
			if r.Metadata == nil {
				r.Metadata = map[string]any{}
			}
			for k, v := range m {
				if _, set := r.Metadata[k]; !set { // the template's own word stands
					r.Metadata[k] = v
				}
			}
			t.Resources[id] = r
		}
		if err := a.add(t, 0); err != nil {
			return nil, err
		}
	}
	a.resolveAll()
	return a, nil
}

// Limits of what the check reads, each with its reason. A file past its limit,
// a path out of its assembly, a file that is not a regular one, a cycle:
// each is an error naming the file and the limit, never its content.
const (
	// MaxTemplateBytes: 16 times CloudFormation's own limit on a template
	// (1,000,000 bytes through S3), room for YAML's comments and layout.
	MaxTemplateBytes = 16 << 20
	// MaxManifestBytes bounds manifest.json and *.assets.json files.
	MaxManifestBytes = 16 << 20
	// maxTemplates bounds the templates of one assembly, nested stacks
	// included: CloudFormation's default quota is 2,000 stacks an account.
	maxTemplates = 10000
)

// maxNesting bounds nested stacks inside nested stacks (CloudFormation's own
// limit is far lower in practice); it also stops a template naming itself.
const maxNesting = 16

// add adds t and, recursively, the nested stacks whose templates lie beside it.
func (a *Assembly) add(t *Template, depth int) error {
	a.Templates = append(a.Templates, t)
	for _, o := range t.Outputs {
		if n, ok := o.Export.Name.(string); ok {
			a.exports[n] = exported{t, o.Value}
		}
	}
	if len(a.Templates) > maxTemplates {
		return fmt.Errorf("cfnmodel: more than %d templates, nested stacks included", maxTemplates)
	}
	for _, id := range t.IDs() {
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
			return fmt.Errorf("cfnmodel: nested stack %s of %s names a template that %w", id, filepath.Base(t.Path), err)
		}
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		for anc := t; anc != nil; anc = anc.parent {
			if filepath.Clean(anc.Path) == filepath.Clean(p) {
				return fmt.Errorf("cfnmodel: nested stack %s of %s nests its own template (a cycle)", id, filepath.Base(t.Path))
			}
		}
		if depth+1 > maxNesting {
			return fmt.Errorf("cfnmodel: nested stacks deeper than %d under %s", maxNesting, filepath.Base(t.Path))
		}
		n, err := ReadTemplate(p)
		if err != nil {
			return err
		}
		n.Stack, n.Account, n.Region = t.Stack+"/"+id, t.Account, t.Region
		n.parent, n.nestedID = t, id
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
func (a *Assembly) assetSource(dir string, v any) string {
	if a.assets == nil {
		a.assets = map[string]map[string]string{}
	}
	keys, ok := a.assets[dir]
	if !ok {
		keys = map[string]string{}
		files, _ := filepath.Glob(filepath.Join(dir, "*.assets.json"))
		for _, f := range files {
			b, err := bounded.ReadFile(f, MaxManifestBytes)
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
	for _, s := range AllStrings(v) {
		if i := strings.LastIndex(s, "/"); i >= 0 {
			if src, ok := keys[s[i+1:]]; ok {
				return src
			}
		}
	}
	return ""
}

// AllStrings lists every string inside a CloudFormation value.
func AllStrings(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, AllStrings(e)...)
		}
		return out
	case map[string]any:
		var out []string
		for _, k := range SortedKeys(x) {
			out = append(out, AllStrings(x[k])...)
		}
		return out
	}
	return nil
}

// ReadTemplate reads one template file, JSON or YAML.
func ReadTemplate(path string) (*Template, error) {
	b, err := bounded.ReadFile(path, MaxTemplateBytes)
	if err != nil {
		return nil, fmt.Errorf("cfnmodel: %w", err)
	}
	doc, err := DecodeTemplate(b, path)
	if err != nil {
		return nil, err
	}
	t := &Template{Path: path, Bytes: len(b), Resources: map[string]Resource{}, Outputs: map[string]Output{}}
	t.Parameters, _ = doc["Parameters"].(map[string]any)
	t.Conditions, _ = doc["Conditions"].(map[string]any)
	t.Mappings, _ = doc["Mappings"].(map[string]any)
	for _, tr := range AllStrings(doc["Transform"]) {
		t.Transforms = append(t.Transforms, tr)
	}
	res, _ := doc["Resources"].(map[string]any)
	for id, v := range res {
		m, _ := v.(map[string]any)
		r := Resource{}
		r.Type, _ = m["Type"].(string)
		r.Properties, _ = m["Properties"].(map[string]any)
		r.Metadata, _ = m["Metadata"].(map[string]any)
		r.Condition, _ = m["Condition"].(string)
		r.DeletionPolicy, _ = m["DeletionPolicy"].(string)
		r.UpdateReplacePolicy, _ = m["UpdateReplacePolicy"].(string)
		if r.Properties == nil {
			r.Properties = map[string]any{}
		}
		t.Resources[id] = r
	}
	outs, _ := doc["Outputs"].(map[string]any)
	for id, v := range outs {
		m, _ := v.(map[string]any)
		o := Output{Value: m["Value"]}
		if e, ok := m["Export"].(map[string]any); ok {
			o.Export.Name = e["Name"]
		}
		t.Outputs[id] = o
	}
	t.raw, t.rawOutputs = t.Resources, t.Outputs
	return t, nil
}

// DecodeTemplate decodes a JSON template; YAML is read by decodeYAML.
func DecodeTemplate(b []byte, path string) (map[string]any, error) {
	var doc map[string]any
	if bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) {
		v, err := decodeJSON(b)
		if doc, _ = v.(map[string]any); err != nil || doc == nil {
			return nil, fmt.Errorf("cfnmodel: %s is not a JSON template", filepath.Base(path))
		}
	} else {
		var err error
		if doc, err = decodeYAML(b, path); err != nil {
			return nil, err
		}
	}
	if _, ok := doc["Resources"].(map[string]any); !ok {
		return nil, fmt.Errorf("cfnmodel: %s is not a CloudFormation template (no Resources)", filepath.Base(path))
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
	Artifacts map[string]artifact
}

// artifact is the part of a manifest's artifact the check reads.
type artifact struct {
	Type        string
	Environment string
	Properties  struct {
		TemplateFile  string
		DirectoryName string
		// CloudFormationExecutionRoleArn is the role CloudFormation
		// deploys the stack with (the synthesizer's), "" when none.
		CloudFormationExecutionRoleArn string
	}
	Metadata               map[string][]metadataEntry
	AdditionalMetadataFile string
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
	b, err := bounded.ReadFile(path, MaxManifestBytes)
	if err != nil {
		return nil, fmt.Errorf("cfnmodel: %w", err)
	}
	m, err := decodeManifest(b)
	if err != nil {
		return nil, fmt.Errorf("cfnmodel: %s/manifest.json is not a cloud assembly manifest", filepath.Base(dir))
	}
	return m, nil
}

// decodeManifest reads the fields of manifest from a manifest.json with
// decodeJSON, under the keys CDK writes; a field of another type refuses the
// whole manifest, as encoding/json's decode of the struct does
// (TestDecodeManifestAgreesWithEncodingJSON).
func decodeManifest(b []byte) (*manifest, error) {
	v, err := decodeJSON(b)
	if err != nil {
		return nil, err
	}
	root, ok := v.(map[string]any)
	if !ok {
		return nil, errJSON
	}
	str := func(o map[string]any, k string, dst *string) bool {
		switch x := o[k].(type) {
		case string:
			*dst = x
		case nil:
		default:
			return false
		}
		return true
	}
	obj := func(x any) (map[string]any, bool) {
		o, ok := x.(map[string]any)
		return o, ok || x == nil
	}
	m := &manifest{}
	arts, ok := obj(root["artifacts"])
	if !ok {
		return nil, errJSON
	}
	if arts != nil {
		m.Artifacts = make(map[string]artifact, len(arts))
	}
	for name, x := range arts {
		o, ok := obj(x)
		if !ok {
			return nil, errJSON
		}
		var a artifact
		props, ok := obj(o["properties"])
		if !ok || !str(o, "type", &a.Type) || !str(o, "environment", &a.Environment) || !str(o, "additionalMetadataFile", &a.AdditionalMetadataFile) ||
			!str(props, "templateFile", &a.Properties.TemplateFile) || !str(props, "directoryName", &a.Properties.DirectoryName) ||
			!str(props, "cloudFormationExecutionRoleArn", &a.Properties.CloudFormationExecutionRoleArn) {
			return nil, errJSON
		}
		if md, ok := obj(o["metadata"]); !ok {
			return nil, errJSON
		} else if md != nil {
			if a.Metadata, err = metadataEntries(md); err != nil {
				return nil, err
			}
		}
		m.Artifacts[name] = a
	}
	return m, nil
}

// readManifestEnvs maps template paths in dir to their stack's account and
// region, and to the construct metadata the model reads (stackMetadata).
func readManifestEnvs(dir string, out map[string][2]string, meta map[string]*stackMeta, roles map[string]string) {
	m, ok := readManifest(dir)
	if !ok {
		return
	}
	for _, a := range m.Artifacts {
		if a.Type != "aws:cloudformation:stack" {
			continue
		}
		if p, err := bounded.Within(dir, a.Properties.TemplateFile); err == nil {
			if md := stackMetadata(dir, a.Metadata, a.AdditionalMetadataFile); md != nil {
				meta[p] = md
			}
			if r := a.Properties.CloudFormationExecutionRoleArn; r != "" {
				roles[p] = r
			}
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
		return fmt.Errorf("cfnmodel: %s cannot be read", filepath.Base(dir))
	}
	if real, err := filepath.EvalSymlinks(key); err == nil {
		key = real
	}
	if seen[key] {
		return fmt.Errorf("cfnmodel: the cloud assembly %s names itself as a nested assembly", filepath.Base(dir))
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
	for _, id := range SortedKeys(m.Artifacts) {
		a := m.Artifacts[id]
		switch a.Type {
		case "aws:cloudformation:stack":
			if a.Properties.TemplateFile != "" {
				p, err := bounded.Within(dir, a.Properties.TemplateFile)
				if err != nil {
					return fmt.Errorf("cfnmodel: the manifest of %s names a template that %w", filepath.Base(dir), err)
				}
				*out = append(*out, p)
			}
		case "cdk:cloud-assembly":
			if a.Properties.DirectoryName == "" {
				continue
			}
			if depth >= maxNesting {
				return fmt.Errorf("cfnmodel: cloud assemblies nested deeper than %d in %s", maxNesting, filepath.Base(dir))
			}
			sub, err := bounded.Within(dir, a.Properties.DirectoryName)
			if err != nil {
				return fmt.Errorf("cfnmodel: the manifest of %s names a nested assembly that %w", filepath.Base(dir), err)
			}
			if err := assemblyTemplates(sub, depth+1, seen, out); err != nil {
				return err
			}
		}
	}
	if len(*out) > maxTemplates {
		return fmt.Errorf("cfnmodel: more than %d templates in %s", maxTemplates, filepath.Base(dir))
	}
	return nil
}

func sortedIDs(m map[string]Resource) []string { return SortedKeys(m) }

// IDs are the template's logical ids, sorted (computed once: the checks
// walk them for every store).
func (t *Template) IDs() []string {
	if t.sortedIDs == nil || len(t.sortedIDs) != len(t.Resources) {
		t.sortedIDs = sortedIDs(t.Resources)
		t.idsByType = nil
	}
	return t.sortedIDs
}

// IDsOf are the logical ids of the resources of the given types, sorted:
// a rule that looks for one type among a template's resources reads these,
// not every id (an index by type, built once).
func (t *Template) IDsOf(types ...string) []string {
	ids := t.IDs()
	if t.idsByType == nil {
		t.idsByType = map[string][]string{}
		for _, id := range ids {
			typ := t.Resources[id].Type
			t.idsByType[typ] = append(t.idsByType[typ], id)
		}
	}
	if len(types) == 1 {
		return t.idsByType[types[0]]
	}
	var out []string
	for _, typ := range slices.Compact(slices.Sorted(slices.Values(types))) {
		out = append(out, t.idsByType[typ]...)
	}
	slices.Sort(out)
	return out
}

func SortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func Dig(m map[string]any, keys ...string) any {
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

func Number(v any, def int) int {
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

func IsTrue(v any) bool { return v == true || v == "true" }

// RefID is the logical id a Ref or Fn::GetAtt points at.
func RefID(v any) string {
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

func RefersTo(v any, id string) bool { return id != "" && RefID(v) == id }

// Mentions says whether v (any CloudFormation value) refers to id anywhere.
func Mentions(v any, id string) bool {
	switch x := v.(type) {
	case map[string]any:
		if RefID(x) == id {
			return true
		}
		for _, e := range x {
			if Mentions(e, id) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if Mentions(e, id) {
				return true
			}
		}
	}
	return false
}

// ReadPaths reads the templates of cloud assembly directories and template
// files, as CheckPaths takes them.
func ReadPaths(paths []string) (*Assembly, error) {
	files, err := TemplateFiles(paths)
	if err != nil {
		return nil, err
	}
	return ReadAssembly(files)
}

// TemplateFiles expands cloud assembly directories into their templates;
// a file stays itself.
func TemplateFiles(paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("cfnmodel: %s: no such file or directory", filepath.Base(p))
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
	b, err := bounded.ReadFile(path, MaxTemplateBytes)
	if err != nil {
		return nil
	}
	return resourceLines(b)
}
