package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The manifests pass; each one with a hardening setting taken out fails,
// naming it (issue 25, item 23: none of them were there and k8scheck said
// nothing).
func TestManifestsAreHardened(t *testing.T) {
	const dir = "../kubernetes"
	if _, err := checkDir(dir); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ file, drop, want string }{
		{"shards-job.yaml", "      automountServiceAccountToken: false # toksweep never calls the Kubernetes API\n", "automountServiceAccountToken"},
		{"shards-job.yaml", "        runAsNonRoot: true\n", "runAsNonRoot"},
		{"shards-job.yaml", "        seccompProfile: {type: RuntimeDefault}\n", "RuntimeDefault"},
		{"shards-job.yaml", "            allowPrivilegeEscalation: false\n", "allowPrivilegeEscalation"},
		{"shards-job.yaml", "            readOnlyRootFilesystem: true # writes go to /results and /tmp only\n", "readOnlyRootFilesystem"},
		{"shards-job.yaml", `            capabilities: {drop: ["ALL"]}` + "\n", "capabilities"},
		{"shards-job.yaml", "  activeDeadlineSeconds: 5400\n", "activeDeadlineSeconds"},
		{"merge-job.yaml", "  ttlSecondsAfterFinished: 86400\n", "ttlSecondsAfterFinished"},
		{"merge-job.yaml", "            limits: {memory: 4Gi}\n", "memory request and limit"},
		{"shards-job.yaml", "              valueFrom: {secretKeyRef: {name: toksweep-api-key, key: api-key, optional: true}}\n", "OPENAI_API_KEY"},
		{"results-reader.yaml", "  automountServiceAccountToken: false\n", "automountServiceAccountToken"},
	} {
		b, err := os.ReadFile(filepath.Join(dir, tc.file))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), tc.drop) {
			t.Fatalf("%s has no %q to take out", tc.file, tc.drop)
		}
		tmp := t.TempDir()
		bad := strings.Replace(string(b), tc.drop, "", 1)
		if err := os.WriteFile(filepath.Join(tmp, tc.file), []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := checkDir(tmp); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s without %q: %v, want an error naming %s", tc.file, strings.TrimSpace(tc.drop), err, tc.want)
		}
	}
	for image, ok := range map[string]bool{"ghcr.io/toksweep/toksweep:latest": false, "ghcr.io/toksweep/toksweep": false,
		"localhost:5000/toksweep": false, "ghcr.io/toksweep/toksweep:v0.1.0": true, "toksweep@sha256:0123": true} {
		if err := checkImage(image); (err == nil) != ok {
			t.Errorf("image %s: %v, want pinned %v", image, err, ok)
		}
	}
}
