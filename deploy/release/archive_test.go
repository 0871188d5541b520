package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
)

// TestChecksums: sha256sum's own lines, sorted by name, for hand-made
// files (sha256 of "hello\n" and of nothing, as sha256sum prints them).
func TestChecksums(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, body := range map[string]string{"b.tar.gz": "hello\n", "a.zip": ""} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := checksums(dir, []string{"b.tar.gz", "a.zip"})
	if err != nil {
		t.Fatal(err)
	}
	want := "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  a.zip\n" +
		"5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03  b.tar.gz\n"
	if string(got) != want {
		t.Errorf("checksums:\n%s\nwant:\n%s", got, want)
	}
}

var testStamp = stamp{Version: "v1.2.0", Revision: "0123456789abcdef0123456789abcdef01234567", Time: time.Date(2026, 12, 6, 13, 0, 0, 0, time.UTC)}

// TestArchiveWindowsIsZip: toksweep.exe and README.md in one folder, with
// the commit's time and their modes.
func TestArchiveWindowsIsZip(t *testing.T) {
	t.Parallel()
	name, body, err := archive(testStamp, target{"windows", "arm64"}, []byte("MZ binary"), []byte("# readme\n"))
	if err != nil {
		t.Fatal(err)
	}
	if name != "toksweep_v1.2.0_windows_arm64.zip" {
		t.Errorf("name %s", name)
	}
	zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range zr.File {
		if !f.Modified.Equal(testStamp.Time) {
			t.Errorf("%s: time %v, want %v", f.Name, f.Modified, testStamp.Time)
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
		got[f.Name] = f.Mode().String() + " " + string(b)
	}
	want := map[string]string{"toksweep_v1.2.0_windows_arm64/": "drwxr-xr-x ",
		"toksweep_v1.2.0_windows_arm64/toksweep.exe": "-rwxr-xr-x MZ binary",
		"toksweep_v1.2.0_windows_arm64/README.md":    "-rw-r--r-- # readme\n"}
	if !maps.Equal(got, want) {
		t.Errorf("the zip holds %q, want %q", got, want)
	}
}

// TestArchiveTarGzIsReproducible: the same stamp and files give the same
// bytes (no time or name in the gzip header), which the checksums of a
// rebuilt release rely on.
func TestArchiveTarGzIsReproducible(t *testing.T) {
	t.Parallel()
	var bodies [][]byte
	for range 2 {
		name, body, err := archive(testStamp, target{"darwin", "arm64"}, []byte("binary"), []byte("# readme\n"))
		if err != nil {
			t.Fatal(err)
		}
		if name != "toksweep_v1.2.0_darwin_arm64.tar.gz" {
			t.Errorf("name %s", name)
		}
		bodies = append(bodies, body)
	}
	if !bytes.Equal(bodies[0], bodies[1]) {
		t.Error("two archives of the same input differ")
	}
	files, err := untarGz(bytes.NewReader(bodies[0]), "")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"toksweep_v1.2.0_darwin_arm64/": "drwxr-xr-x",
		"toksweep_v1.2.0_darwin_arm64/toksweep": "-rwxr-xr-x", "toksweep_v1.2.0_darwin_arm64/README.md": "-rw-r--r--"}
	if !maps.Equal(files, want) {
		t.Errorf("the tar.gz holds %v, want %v", files, want)
	}
}

// untarGz reads a tar.gz's entries' modes and, when dir is given, extracts
// it there.
func untarGz(r io.Reader, dir string) (map[string]string, error) {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return nil, err
	}
	if dir == "" {
		dir, err = os.MkdirTemp("", "untar-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
	}
	return extract(gz, dir)
}

// TestBuiltArchives: SHA256SUMS lists every archive built and verifies
// them (as `sha256sum -c` does); the host's archive holds its folder with
// the binary and README.md, and the binary prints the stamped version.
func TestBuiltArchives(t *testing.T) {
	// Serial: it writes a binary and runs it; a fork of another test while
	// the file is open for writing makes the exec fail with "text file busy".
	entries, err := os.ReadDir(built.dist)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		if e.Name() != sumsFile {
			files = append(files, e.Name())
		}
	}
	sums, err := os.Open(filepath.Join(built.dist, sumsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer sums.Close()
	var listed []string
	sc := bufio.NewScanner(sums)
	for sc.Scan() {
		sum, name, ok := bytes.Cut(sc.Bytes(), []byte("  "))
		body, err := os.ReadFile(filepath.Join(built.dist, string(name)))
		got := sha256.Sum256(body)
		if !ok || err != nil || hex.EncodeToString(got[:]) != string(sum) {
			t.Errorf("SHA256SUMS line %q does not verify (%v)", sc.Text(), err)
		}
		listed = append(listed, string(name))
	}
	if !slices.Equal(listed, files) || len(files) == 0 {
		t.Errorf("SHA256SUMS lists %q, the directory holds %q", listed, files)
	}
	host := target{runtime.GOOS, runtime.GOARCH}
	f, err := os.Open(filepath.Join(built.dist, archiveBase(built.version, host)+".tar.gz"))
	if err != nil {
		t.Fatalf("the host's archive: %v", err)
	}
	defer f.Close()
	dir := t.TempDir()
	modes, err := untarGz(f, dir)
	if err != nil {
		t.Fatal(err)
	}
	base := archiveBase(built.version, host)
	if want := []string{base + "/", base + "/README.md", base + "/toksweep"}; !slices.Equal(slices.Sorted(maps.Keys(modes)), want) {
		t.Errorf("the archive holds %v, want %q", modes, want)
	}
	checkVersion(t, filepath.Join(dir, base, "toksweep"), "", nil)
}
