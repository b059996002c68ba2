package test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/linn-cloud/erasure-channel/stacks/pinnednode"
)

// maxArtifactBytes is issue 56's target for any one artifact a team
// installs: at most 8 MB (docs/release.md).
const maxArtifactBytes = 8_000_000

// nativePlatform is a platform the check is built for natively, as each
// registry names it.
type nativePlatform struct {
	node    string // npm's os-cpu (process.platform-process.arch)
	wheel   string // the platform wheel's tag, as in its file name
	maven   string // the Maven classifier (os-maven-plugin's names)
	goos    string
	machine string // the binary's architecture: "amd64" or "arm64"
}

var nativePlatforms = []nativePlatform{
	{"linux-x64", "manylinux2014_x86_64.musllinux_1_1_x86_64", "linux-x86_64", "linux", "amd64"},
	{"linux-arm64", "manylinux2014_aarch64.musllinux_1_1_aarch64", "linux-aarch_64", "linux", "arm64"},
	{"darwin-x64", "macosx_12_0_x86_64", "osx-x86_64", "darwin", "amd64"},
	{"darwin-arm64", "macosx_12_0_arm64", "osx-aarch_64", "darwin", "arm64"},
	{"win32-x64", "win_amd64", "windows-x86_64", "windows", "amd64"},
}

// binaryPlatform reads an executable's header: its OS and architecture, or
// ok false when b is not an ELF, Mach-O or PE file.
func binaryPlatform(b []byte) (goos, machine string, ok bool) {
	r := bytes.NewReader(b)
	if f, err := elf.NewFile(r); err == nil {
		switch f.Machine {
		case elf.EM_X86_64:
			return "linux", "amd64", true
		case elf.EM_AARCH64:
			return "linux", "arm64", true
		}
		return "linux", f.Machine.String(), true
	}
	if f, err := macho.NewFile(r); err == nil {
		switch f.Cpu {
		case macho.CpuAmd64:
			return "darwin", "amd64", true
		case macho.CpuArm64:
			return "darwin", "arm64", true
		}
		return "darwin", f.Cpu.String(), true
	}
	if f, err := pe.NewFile(r); err == nil {
		switch f.Machine {
		case pe.IMAGE_FILE_MACHINE_AMD64:
			return "windows", "amd64", true
		case pe.IMAGE_FILE_MACHINE_ARM64:
			return "windows", "arm64", true
		}
		return "windows", "other", true
	}
	return "", "", false
}

// archiveFile is one file of an artifact.
type archiveFile struct {
	name string
	data []byte
}

func readTarGz(t *testing.T, path string) []archiveFile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	tr := tar.NewReader(gz)
	var files []archiveFile
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, archiveFile{h.Name, b})
	}
}

func readZip(t *testing.T, path string) []archiveFile {
	t.Helper()
	z, err := zip.OpenReader(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer z.Close()
	var files []archiveFile
	for _, f := range z.File {
		if f.FileInfo().IsDir() {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, archiveFile{f.Name, b})
	}
	return files
}

// readDir is every file under dir (the Go module, which is a folder).
func readDir(t *testing.T, dir string) []archiveFile {
	t.Helper()
	var files []archiveFile
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		files = append(files, archiveFile{p, b})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// binaries are the native executables among files, and, one level down, in
// the archives they carry (the jsii tarball inside a wheel, jar or module).
func binaries(t *testing.T, files []archiveFile) []string {
	t.Helper()
	var found []string
	for _, f := range files {
		if goos, machine, ok := binaryPlatform(f.data); ok {
			found = append(found, f.name+" ("+goos+"/"+machine+")")
		}
		if strings.HasSuffix(f.name, ".tgz") {
			tmp := filepath.Join(t.TempDir(), "nested.tgz")
			if err := os.WriteFile(tmp, f.data, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, b := range binaries(t, readTarGz(t, tmp)) {
				found = append(found, f.name+"!"+b)
			}
		}
	}
	return found
}

func sizeAtMost(t *testing.T, path string, size int64) {
	t.Helper()
	if size > maxArtifactBytes {
		t.Errorf("%s is %d bytes: past the %d a team should download", filepath.Base(path), size, maxArtifactBytes)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// TestArtifactsCarryOnePlatformBinary: no artifact of the release carries a
// native binary it does not need. The jsii artifacts (the npm tarball, the
// wheel and sdist, the jar and its sources jar, the Go module, the C#
// sources) carry none, at any depth; each platform package (npm's optional
// dependencies, the platform wheels, the Maven classifier jars) carries
// exactly one, built for the platform its name, tag or classifier says, as
// its header reads. Each is at most 8 MB, and the npm tarball lists the five
// platform packages, at its version, as optional dependencies.
func TestArtifactsCarryOnePlatformBinary(t *testing.T) {
	root, _, err := pinnednode.Find("..")
	if err != nil {
		t.Skip("the pinned Node is not installed: ", err)
	}
	d := dist(t, root)
	npm := one(t, filepath.Join(d, "js", "*.jsii.tgz"))
	version := regexp.MustCompile(`@([^@]+)\.jsii\.tgz$`).FindStringSubmatch(npm)[1]

	jsii := map[string][]archiveFile{
		npm: readTarGz(t, npm),
		one(t, filepath.Join(d, "python", "erasure_channel_constructs-*.whl")):    readZip(t, one(t, filepath.Join(d, "python", "erasure_channel_constructs-*.whl"))),
		one(t, filepath.Join(d, "python", "erasure_channel_constructs-*.tar.gz")): readTarGz(t, one(t, filepath.Join(d, "python", "erasure_channel_constructs-*.tar.gz"))),
		filepath.Join(d, "go"):     readDir(t, filepath.Join(d, "go")),
		filepath.Join(d, "dotnet"): readDir(t, filepath.Join(d, "dotnet")),
	}
	jars, _ := filepath.Glob(filepath.Join(d, "java", "com", "linn-cloud", "erasure-channel-constructs", version, "*.jar"))
	if len(jars) != 3 {
		t.Errorf("want the jar, its sources and its javadoc, found %v", jars)
	}
	for _, j := range jars {
		jsii[j] = readZip(t, j)
	}
	for path, files := range jsii {
		if b := binaries(t, files); len(b) > 0 {
			t.Errorf("%s carries native binaries: %v", path, b)
		}
		var size int64
		if st, _ := os.Stat(path); st != nil && st.IsDir() {
			for _, f := range files {
				size += int64(len(f.data))
			}
		} else {
			size = fileSize(t, path)
		}
		sizeAtMost(t, path, size)
		for _, f := range files {
			if strings.Contains(f.name, ".data/scripts/") || strings.Contains(f.name, "/_jsii/bin/erasure-") {
				t.Errorf("%s: %s: the platform wheel owns the erasure-check and erasure-conform commands", path, f.name)
			}
		}
	}

	var manifest struct {
		OptionalDependencies map[string]string `json:"optionalDependencies"`
	}
	for _, f := range jsii[npm] {
		if f.name == "package/package.json" {
			if err := json.Unmarshal(f.data, &manifest); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(manifest.OptionalDependencies) != len(nativePlatforms) {
		t.Errorf("the npm tarball's optional dependencies: %v, want one per platform", manifest.OptionalDependencies)
	}

	for _, p := range nativePlatforms {
		if v := manifest.OptionalDependencies["@linn-cloud/erasure-check-"+p.node]; v != version {
			t.Errorf("optional dependency @linn-cloud/erasure-check-%s: %q, want %q", p.node, v, version)
		}
		packages := map[string][]archiveFile{}
		tgz := filepath.Join(d, "js", "linn-cloud-erasure-check-"+p.node+"-"+version+".tgz")
		whl := filepath.Join(d, "python", "erasure_channel_check-"+version+"-py3-none-"+p.wheel+".whl")
		jar := filepath.Join(d, "java", "com", "linn-cloud", "erasure-channel-check", version, "erasure-channel-check-"+version+"-"+p.maven+".jar")
		packages[tgz], packages[whl], packages[jar] = readTarGz(t, tgz), readZip(t, whl), readZip(t, jar)
		for path, files := range packages {
			b := binaries(t, files)
			want := " (" + p.goos + "/" + p.machine + ")"
			if len(b) != 1 || !strings.HasSuffix(b[0], want) {
				t.Errorf("%s: want one binary for %s/%s, found %v", filepath.Base(path), p.goos, p.machine, b)
			}
			sizeAtMost(t, path, fileSize(t, path))
		}
		var pkg struct{ OS, CPU []string }
		for _, f := range packages[tgz] {
			if f.name == "package/package.json" {
				_ = json.Unmarshal(f.data, &pkg)
			}
		}
		if os, cpu, _ := strings.Cut(p.node, "-"); len(pkg.OS) != 1 || pkg.OS[0] != os || len(pkg.CPU) != 1 || pkg.CPU[0] != cpu {
			t.Errorf("%s: os %v cpu %v, want [%s] [%s]", filepath.Base(tgz), pkg.OS, pkg.CPU, os, cpu)
		}
	}
}

// TestKitsAreReleasedWithTheConstructs holds each handler kit's version to
// the constructs' and finds each kit's artifact in dist beside theirs: the
// npm tarball, the wheel and the Maven jar with its POM.
func TestKitsAreReleasedWithTheConstructs(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	jsonVersion := regexp.MustCompile(`(?m)^  "version": "([^"]+)"`)
	want := jsonVersion.FindStringSubmatch(read("constructs/typescript/package.json"))[1]
	for kit, got := range map[string]string{
		"typescript": jsonVersion.FindStringSubmatch(read("contract/handlerkit/typescript/package.json"))[1],
		"python":     regexp.MustCompile(`__version__ = "([^"]+)"`).FindStringSubmatch(read("contract/handlerkit/python/erasure_channel_handler/_version.py"))[1],
		"java":       regexp.MustCompile(`<artifactId>erasure-handler-kit</artifactId>\s*<version>([^<]+)</version>`).FindStringSubmatch(read("contract/handlerkit/java/pom.xml"))[1],
	} {
		if got != want {
			t.Errorf("the %s kit is version %s, the constructs %s", kit, got, want)
		}
	}
	d := dist(t, root)
	for _, p := range []string{
		filepath.Join(d, "js", "linn-cloud-erasure-handler-kit-"+want+".tgz"),
		filepath.Join(d, "python", "erasure_channel_handler-"+want+"-py3-none-any.whl"),
		filepath.Join(d, "java", "com", "linn-cloud", "erasure-handler-kit", want, "erasure-handler-kit-"+want+".jar"),
		filepath.Join(d, "java", "com", "linn-cloud", "erasure-handler-kit", want, "erasure-handler-kit-"+want+".pom"),
	} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("no kit artifact %s", strings.TrimPrefix(p, d+"/"))
		}
	}
}
