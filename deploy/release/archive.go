package main

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// sumsFile is the checksums' file, in `sha256sum -c`'s format.
const sumsFile = "SHA256SUMS"

// buildArchives writes one archive per target to out and their
// SHA256SUMS.
func buildArchives(ctx context.Context, src string, st stamp, targets []target, out string, stdout io.Writer) error {
	if err := emptyDir(out); err != nil {
		return err
	}
	readme, err := os.ReadFile(filepath.Join(src, "README.md"))
	if err != nil {
		return err
	}
	var names []string
	for _, t := range targets {
		bin, err := readBinary(ctx, src, st, t)
		if err != nil {
			return err
		}
		name, body, err := archive(st, t, bin, readme)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, name), body, 0o644); err != nil {
			return err
		}
		names = append(names, name)
		fmt.Fprintf(stdout, "archive %s\n", filepath.Join(out, name))
	}
	sums, err := checksums(out, names)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, sumsFile), sums, 0o644)
}

// archiveBase is an archive's name without its extension, and its one
// folder: toksweep_v0.1.0_linux_amd64.
func archiveBase(version string, t target) string {
	return "toksweep_" + version + "_" + t.OS + "_" + t.Arch
}

// archive is one target's archive: the folder archiveBase holding the
// binary (toksweep, toksweep.exe on windows) and README.md; a zip for
// windows, else a tar.gz. Every file has the commit's time.
func archive(st stamp, t target, bin, readme []byte) (string, []byte, error) {
	base := archiveBase(st.Version, t)
	exe := "toksweep"
	if t.OS == "windows" {
		exe += ".exe"
	}
	files := []file{{base + "/", 0o755, nil}, {base + "/" + exe, 0o755, bin}, {base + "/README.md", 0o644, readme}}
	var buf bytes.Buffer
	if t.OS == "windows" {
		err := writeZip(&buf, files, st.Time)
		return base + ".zip", buf.Bytes(), err
	}
	// No name and no time in the gzip header: the same input, the same bytes.
	gz, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return "", nil, err
	}
	if err := writeTar(gz, files, st.Time); err != nil {
		return "", nil, err
	}
	err = gz.Close()
	return base + ".tar.gz", buf.Bytes(), err
}

// writeZip writes files as a zip archive, deflated, each with the time
// mtime and its mode.
func writeZip(w io.Writer, files []file, mtime time.Time) error {
	zw := zip.NewWriter(w)
	for _, f := range files {
		h := &zip.FileHeader{Name: f.path, Method: zip.Deflate, Modified: mtime}
		h.SetMode(os.FileMode(f.mode&0o777) | dirBit(f))
		if f.body == nil {
			h.Method = zip.Store
		}
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := fw.Write(f.body); err != nil {
			return err
		}
	}
	return zw.Close()
}

func dirBit(f file) os.FileMode {
	if f.body == nil {
		return os.ModeDir
	}
	return 0
}

// checksums is SHA256SUMS for the named files of dir: one line a file,
// sorted by name, "HEX  NAME" (two spaces: binary and text read the same),
// as sha256sum writes it and `sha256sum -c` reads it.
func checksums(dir string, names []string) ([]byte, error) {
	names = slices.Sorted(slices.Values(names))
	var b strings.Builder
	for _, name := range names {
		body, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(body)
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum[:]), name)
	}
	return []byte(b.String()), nil
}
