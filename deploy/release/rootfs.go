package main

import (
	"archive/tar"
	"bytes"
	"io"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// passwd and group name user and group 65532 (nonroot), so that a lookup
// of the running user finds it; HOME is /tmp, where the pods mount an
// emptyDir (the root filesystem is read-only).
const (
	passwd = "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/tmp:/sbin/nologin\n"
	group  = "root:x:0:\nnonroot:x:65532:\n"
)

// file is one entry of the root filesystem: a directory when body is nil.
type file struct {
	path string
	mode int64
	body []byte
}

// rootfsFiles are the image's whole root filesystem, in tar order.
func rootfsFiles(bin, certs []byte) []file {
	return []file{
		{"etc/", 0o755, nil},
		{"etc/group", 0o644, []byte(group)},
		{"etc/passwd", 0o644, []byte(passwd)},
		{"etc/ssl/", 0o755, nil},
		{"etc/ssl/certs/", 0o755, nil},
		{"etc/ssl/certs/ca-certificates.crt", 0o644, certs},
		{"tmp/", 0o1777, nil},
		{"usr/", 0o755, nil},
		{"usr/local/", 0o755, nil},
		{"usr/local/bin/", 0o755, nil},
		{entrypoint[1:], 0o755, bin},
	}
}

// rootfs is the image's one layer: rootfsFiles, owned by root, every time
// the commit's, so that the same commit gives the same digest.
func rootfs(bin, certs []byte, mtime time.Time) (v1.Layer, error) {
	var buf bytes.Buffer
	if err := writeTar(&buf, rootfsFiles(bin, certs), mtime); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil },
		tarball.WithMediaType(types.OCILayer), tarball.WithCompressedCaching)
}

// writeTar writes files as a tar stream, each owned by root with the time
// mtime.
func writeTar(w io.Writer, files []file, mtime time.Time) error {
	tw := tar.NewWriter(w)
	for _, f := range files {
		h := &tar.Header{Name: f.path, Mode: f.mode, ModTime: mtime, Typeflag: tar.TypeReg, Size: int64(len(f.body)), Format: tar.FormatPAX}
		if f.body == nil {
			h.Typeflag = tar.TypeDir
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := tw.Write(f.body); err != nil {
			return err
		}
	}
	return tw.Close()
}
