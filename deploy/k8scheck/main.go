// Command k8scheck checks toksweep's Kubernetes manifests: every document
// of every deploy/kubernetes/*.yaml must decode, with strict field checking
// (an unknown or duplicated field is an error), into the Kubernetes API
// type its kind names, the sharded-run Jobs must keep the settings the
// README relies on, and every pod must pass the Pod Security "restricted"
// profile and the hardening the README promises (security.go). Usage:
// go run . DIR
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: k8scheck DIR")
		os.Exit(2)
	}
	n, err := checkDir(os.Args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "k8scheck: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("k8scheck: %d manifests in %s decode strictly\n", n, os.Args[1])
}

// checkDir checks every document of every .yaml file in dir.
func checkDir(dir string) (int, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		return 0, fmt.Errorf("no manifests in %s (%v)", dir, err)
	}
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return n, err
		}
		for i, doc := range documents(b) {
			if err := checkDoc(doc); err != nil {
				return n, fmt.Errorf("%s, document %d: %w", f, i+1, err)
			}
			n++
		}
	}
	return n, nil
}

var separator = regexp.MustCompile(`(?m)^---\s*$`)

// documents splits a multi-document YAML file, dropping empty documents.
func documents(b []byte) [][]byte {
	var docs [][]byte
	for _, d := range separator.Split(string(b), -1) {
		if strings.TrimSpace(stripComments(d)) != "" {
			docs = append(docs, []byte(d))
		}
	}
	return docs
}

func stripComments(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// checkDoc decodes one document strictly into the type of its kind.
func checkDoc(doc []byte) error {
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := yaml.Unmarshal(doc, &head); err != nil {
		return err
	}
	var obj any
	switch head.APIVersion + " " + head.Kind {
	case "batch/v1 Job":
		obj = &batchv1.Job{}
	case "v1 PersistentVolumeClaim":
		obj = &corev1.PersistentVolumeClaim{}
	case "v1 ConfigMap":
		obj = &corev1.ConfigMap{}
	case "v1 Pod":
		obj = &corev1.Pod{}
	default:
		return fmt.Errorf("unexpected %s %s", head.APIVersion, head.Kind)
	}
	if err := yaml.UnmarshalStrict(bytes.TrimSpace(doc), obj); err != nil {
		return err
	}
	switch o := obj.(type) {
	case *batchv1.Job:
		if err := checkJob(o); err != nil {
			return err
		}
		if err := checkJobLimits(o); err != nil {
			return err
		}
		return checkPod("job "+o.Name, &o.Spec.Template.Spec)
	case *corev1.Pod:
		return checkPod("pod "+o.Name, &o.Spec)
	case *corev1.PersistentVolumeClaim:
		if !slices.Contains(o.Spec.AccessModes, corev1.ReadWriteMany) {
			return fmt.Errorf("PVC %s is not ReadWriteMany: the shards write from several nodes", o.Name)
		}
	}
	return nil
}

// checkJob requires what every toksweep Job relies on, and of a shard Job
// (one that runs --shard-from-env) an Indexed Job with parallelism =
// completions = N, the --shard N it passes.
func checkJob(j *batchv1.Job) error {
	s := j.Spec
	if s.Template.Spec.RestartPolicy != corev1.RestartPolicyNever || s.BackoffLimit == nil || *s.BackoffLimit != 0 {
		return fmt.Errorf("job %s: want restartPolicy Never and backoffLimit 0 (a retried shard cannot rejoin the run)", j.Name)
	}
	args := strings.Join(s.Template.Spec.Containers[0].Args, " ")
	if !strings.Contains(args, "--shard-from-env") {
		return nil
	}
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
		return fmt.Errorf("job %s: a shard Job must have completionMode Indexed", j.Name)
	}
	if s.Completions == nil || s.Parallelism == nil || *s.Completions != *s.Parallelism {
		return fmt.Errorf("job %s: parallelism must equal completions (every shard runs at once)", j.Name)
	}
	if want := fmt.Sprintf("--shard=%d", *s.Completions); !strings.Contains(args, want) {
		return fmt.Errorf("job %s: completions is %d but the args do not pass %s", j.Name, *s.Completions, want)
	}
	return nil
}
