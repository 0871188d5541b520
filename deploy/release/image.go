package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// entrypoint is where the image holds the binary; nonroot the user it runs
// as (distroless's nonroot, which deploy/kubernetes's pods run as).
const (
	entrypoint = "/usr/local/bin/toksweep"
	nonroot    = "65532"
)

// imageJob is one image subcommand.
type imageJob struct {
	src, caCerts, source, layout, push string
	stamp                              stamp
	platforms                          []target
}

// buildImage builds one image per platform, their index, writes the index
// to the OCI layout and, with a push reference, to the registry.
func buildImage(ctx context.Context, job imageJob, stdout io.Writer) error {
	certs, err := os.ReadFile(job.caCerts)
	if err != nil {
		return fmt.Errorf("the image's CA bundle: %v (install ca-certificates, or give --ca-certs)", err)
	}
	if err := emptyDir(job.layout); err != nil {
		return err
	}
	labels := ociLabels(job.stamp, job.source)
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, p := range job.platforms {
		bin, err := readBinary(ctx, job.src, job.stamp, p)
		if err != nil {
			return err
		}
		img, err := platformImage(bin, certs, p, job.stamp.Time, labels)
		if err != nil {
			return err
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: p.OS, Architecture: p.Arch}}})
	}
	idx = mutate.Annotations(idx, labels).(v1.ImageIndex)
	digest, err := idx.Digest()
	if err != nil {
		return err
	}
	if err := writeLayout(job.layout, idx, job.stamp.Version); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "image %s: index %s (%d platforms) in OCI layout %s\n", job.stamp.Version, digest, len(job.platforms), job.layout)
	if job.push == "" {
		return nil
	}
	return push(ctx, job.push, idx, stdout)
}

// push writes the index, its images and their blobs to the registry
// reference ref (repo:tag), with the default keychain's credentials, and
// prints the digest reference to pin.
func push(ctx context.Context, ref string, idx v1.ImageIndex, stdout io.Writer) error {
	r, err := name.ParseReference(ref)
	if err != nil {
		return usageError{fmt.Sprintf("--push %q: %v", ref, err)}
	}
	digest, err := idx.Digest()
	if err != nil {
		return err
	}
	if err := remote.WriteIndex(r, idx, remote.WithContext(ctx), remote.WithAuthFromKeychain(authn.DefaultKeychain)); err != nil {
		return fmt.Errorf("push %s: %v", r, err)
	}
	fmt.Fprintf(stdout, "pushed %s; pin it as image: %s@%s\n", r, r.Context(), digest)
	return nil
}

// ociLabels are the image's labels and its manifests' annotations.
func ociLabels(st stamp, source string) map[string]string {
	return map[string]string{
		"org.opencontainers.image.title":       "toksweep",
		"org.opencontainers.image.description": "A load generator for OpenAI-compatible LLM servers",
		"org.opencontainers.image.source":      source,
		"org.opencontainers.image.revision":    st.Revision,
		"org.opencontainers.image.version":     st.Version,
		"org.opencontainers.image.created":     st.Time.Format(time.RFC3339),
	}
}

// platformImage is the scratch image of one platform: one layer
// (rootfs), toksweep as entrypoint, user 65532.
func platformImage(bin, certs []byte, p target, created time.Time, labels map[string]string) (v1.Image, error) {
	layer, err := rootfs(bin, certs, created)
	if err != nil {
		return nil, err
	}
	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{Layer: layer, History: v1.History{
		Created: v1.Time{Time: created}, CreatedBy: "deploy/release: toksweep " + labels["org.opencontainers.image.version"]}})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = p.OS, p.Arch
	cf.Created = v1.Time{Time: created}
	cf.Config = v1.Config{
		Entrypoint: []string{entrypoint},
		User:       nonroot,
		Env:        []string{"PATH=/usr/local/bin", "HOME=/tmp"},
		Labels:     maps.Clone(labels),
	}
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, err
	}
	return mutate.Annotations(img, labels).(v1.Image), nil
}

// writeLayout writes the index to a new OCI layout, named by the version
// (org.opencontainers.image.ref.name), as skopeo, crane and containerd
// read it.
func writeLayout(dir string, idx v1.ImageIndex, version string) error {
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	return p.AppendIndex(idx, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": version}))
}
