package main

import (
	"archive/tar"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"log"
	"maps"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// builtIndex is the image index of the built OCI layout: the layout's
// one entry, named by the version.
func builtIndex(t *testing.T) v1.ImageIndex {
	t.Helper()
	top, err := layout.ImageIndexFromPath(built.layout)
	if err != nil {
		t.Fatal(err)
	}
	im, err := top.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Manifests) != 1 || im.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != built.version {
		t.Fatalf("the layout's index.json lists %+v, want one index named %s", im.Manifests, built.version)
	}
	idx, err := top.ImageIndex(im.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

// wantLabels checks the OCI labels or annotations m.
func wantLabels(t *testing.T, what string, m map[string]string) {
	t.Helper()
	for k, want := range map[string]string{
		"org.opencontainers.image.source":   "https://github.com/toksweep/toksweep",
		"org.opencontainers.image.revision": built.revision,
		"org.opencontainers.image.version":  built.version,
		"org.opencontainers.image.title":    "toksweep",
	} {
		if m[k] != want {
			t.Errorf("%s: %s = %q, want %q", what, k, m[k], want)
		}
	}
}

// TestImageIndexListsBothPlatforms: an OCI index of linux/amd64 and
// linux/arm64, annotated.
func TestImageIndexListsBothPlatforms(t *testing.T) {
	t.Parallel()
	idx := builtIndex(t)
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if im.MediaType != types.OCIImageIndex {
		t.Errorf("index media type %s, want %s", im.MediaType, types.OCIImageIndex)
	}
	var platforms []string
	for _, d := range im.Manifests {
		platforms = append(platforms, d.Platform.String())
		if d.MediaType != types.OCIManifestSchema1 {
			t.Errorf("%s: media type %s, want %s", d.Platform, d.MediaType, types.OCIManifestSchema1)
		}
	}
	if want := []string{"linux/amd64", "linux/arm64"}; !slices.Equal(platforms, want) {
		t.Errorf("the index lists %q, want %q", platforms, want)
	}
	wantLabels(t, "index annotations", im.Annotations)
}

// TestImageConfig: each platform's image is for its platform, runs
// toksweep as user 65532 (not root) and carries the labels.
func TestImageConfig(t *testing.T) {
	t.Parallel()
	idx := builtIndex(t)
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range im.Manifests {
		img, err := idx.Image(d.Digest)
		if err != nil {
			t.Fatal(err)
		}
		cf, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		m, err := img.Manifest()
		if err != nil {
			t.Fatal(err)
		}
		if cf.OS != d.Platform.OS || cf.Architecture != d.Platform.Architecture {
			t.Errorf("%s: config says %s/%s", d.Platform, cf.OS, cf.Architecture)
		}
		if cf.Config.User != "65532" {
			t.Errorf("%s: user %q, want 65532 (non-root)", d.Platform, cf.Config.User)
		}
		if !slices.Equal(cf.Config.Entrypoint, []string{"/usr/local/bin/toksweep"}) || len(cf.Config.Cmd) != 0 {
			t.Errorf("%s: entrypoint %q cmd %q, want the toksweep binary alone", d.Platform, cf.Config.Entrypoint, cf.Config.Cmd)
		}
		if len(m.Layers) != 1 || m.Layers[0].MediaType != types.OCILayer {
			t.Errorf("%s: layers %+v, want one %s (FROM scratch)", d.Platform, m.Layers, types.OCILayer)
		}
		wantLabels(t, d.Platform.String()+" labels", cf.Config.Labels)
		wantLabels(t, d.Platform.String()+" manifest annotations", m.Annotations)
	}
}

// TestImageEntrypointRunsVersion: the host platform's layer, extracted,
// holds exactly the root filesystem, with a static binary that prints the
// stamped version as user 65532.
func TestImageEntrypointRunsVersion(t *testing.T) {
	// Serial: it writes a binary and runs it; a fork of another test while
	// the file is open for writing makes the exec fail with "text file busy".
	idx := builtIndex(t)
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(im.Manifests, func(d v1.Descriptor) bool { return d.Platform.Architecture == runtime.GOARCH })
	if i < 0 {
		t.Fatalf("no image for linux/%s", runtime.GOARCH)
	}
	img, err := idx.Image(im.Manifests[i].Digest)
	if err != nil {
		t.Fatal(err)
	}
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("layers: %d, %v", len(layers), err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	root := t.TempDir()
	if err := os.Chmod(root, 0o755); err != nil { // user 65532 walks it in the chroot
		t.Fatal(err)
	}
	modes, err := extract(rc, root)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"etc/": "drwxr-xr-x", "etc/group": "-rw-r--r--", "etc/passwd": "-rw-r--r--",
		"etc/ssl/": "drwxr-xr-x", "etc/ssl/certs/": "drwxr-xr-x", "etc/ssl/certs/ca-certificates.crt": "-rw-r--r--",
		"tmp/": "dtrwxrwxrwx", "usr/": "drwxr-xr-x", "usr/local/": "drwxr-xr-x", "usr/local/bin/": "drwxr-xr-x",
		"usr/local/bin/toksweep": "-rwxr-xr-x"}
	if !maps.Equal(modes, want) {
		t.Errorf("the layer holds %v, want %v", modes, want)
	}
	bin := filepath.Join(root, "usr/local/bin/toksweep")
	if err := checkStatic(bin); err != nil {
		t.Error(err)
	}
	passwd, err := os.ReadFile(filepath.Join(root, "etc/passwd"))
	if err != nil || !strings.Contains(string(passwd), "\nnonroot:x:65532:65532:") {
		t.Errorf("etc/passwd %q (%v): want user 65532", passwd, err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	checkVersion(t, bin, root, cf.Config.Env)
}

// extract writes a layer's regular files and directories under root and
// returns each entry's mode; anything else is an error.
func extract(r io.Reader, root string) (map[string]string, error) {
	modes := map[string]string{}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return modes, nil
		}
		if err != nil {
			return nil, err
		}
		if !filepath.IsLocal(h.Name) {
			return nil, fmt.Errorf("entry %q leaves the root", h.Name)
		}
		modes[h.Name] = h.FileInfo().Mode().String()
		path := filepath.Join(root, h.Name)
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.Mkdir(path, h.FileInfo().Mode().Perm())
		case tar.TypeReg:
			err = writeFile(path, tr, h.FileInfo().Mode().Perm())
		default:
			err = fmt.Errorf("entry %q: type %c, want a file or a directory", h.Name, h.Typeflag)
		}
		if err != nil {
			return nil, err
		}
	}
}

func writeFile(path string, r io.Reader, perm os.FileMode) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// checkStatic: an ELF with no interpreter and no shared libraries, which
// runs FROM scratch.
func checkStatic(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("%s asks for an interpreter: not static", path)
		}
	}
	libs, err := f.ImportedLibraries()
	if err != nil || len(libs) > 0 {
		return fmt.Errorf("%s imports %q (%v): not static", path, libs, err)
	}
	return nil
}

// TestPush: the built index, pushed to a registry on 127.0.0.1
// (go-containerregistry's own, in memory), is there under the tag with the
// digest push says to pin, with both platforms.
func TestPush(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	idx := builtIndex(t)
	repo := strings.TrimPrefix(srv.URL, "http://") + "/toksweep/toksweep"
	ref := repo + ":test"
	var out strings.Builder
	if err := push(t.Context(), ref, idx, &out); err != nil {
		t.Fatal(err)
	}
	digest, err := idx.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("pushed %s; pin it as image: %s@%s\n", ref, repo, digest); out.String() != want {
		t.Errorf("push printed %q, want %q", out.String(), want)
	}
	r, err := name.ParseReference(ref)
	if err != nil {
		t.Fatal(err)
	}
	pulled, err := remote.Index(r, remote.WithContext(t.Context()))
	if err != nil {
		t.Fatal(err)
	}
	got, err := pulled.Digest()
	if err != nil || got != digest {
		t.Errorf("the registry's %s is %s (%v), want %s", ref, got, err, digest)
	}
	for _, arch := range []string{"amd64", "arm64"} {
		img, err := remote.Image(r, remote.WithContext(t.Context()), remote.WithPlatform(v1.Platform{OS: "linux", Architecture: arch}))
		if err != nil {
			t.Fatalf("linux/%s: %v", arch, err)
		}
		if _, err := img.ConfigFile(); err != nil {
			t.Errorf("linux/%s: %v", arch, err)
		}
	}
}
