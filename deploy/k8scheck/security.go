package main

import (
	"fmt"
	"slices"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// checkJobLimits requires a Job to stop by itself: a deadline for a hung
// pod and a time-to-live once it has finished.
func checkJobLimits(j *batchv1.Job) error {
	switch s := j.Spec; {
	case s.ActiveDeadlineSeconds == nil || *s.ActiveDeadlineSeconds <= 0:
		return fmt.Errorf("job %s: no activeDeadlineSeconds: a hung pod would run forever", j.Name)
	case s.TTLSecondsAfterFinished == nil:
		return fmt.Errorf("job %s: no ttlSecondsAfterFinished: finished Jobs would pile up", j.Name)
	}
	return nil
}

// checkPod requires Pod Security "restricted" of a pod spec (non-root,
// RuntimeDefault seccomp, no privilege escalation, every capability
// dropped), a read-only root filesystem, no service-account token, pinned
// images with resources, no --api-key in any args, and of a sweep
// container the API key from an optional Secret.
func checkPod(what string, p *corev1.PodSpec) error {
	if p.AutomountServiceAccountToken == nil || *p.AutomountServiceAccountToken {
		return fmt.Errorf("%s: want automountServiceAccountToken: false", what)
	}
	sc := p.SecurityContext
	if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		return fmt.Errorf("%s: want securityContext.runAsNonRoot: true", what)
	}
	if sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		return fmt.Errorf("%s: want securityContext.seccompProfile.type RuntimeDefault", what)
	}
	for _, c := range p.Containers {
		if err := checkContainer(c); err != nil {
			return fmt.Errorf("%s, container %s: %w", what, c.Name, err)
		}
	}
	return nil
}

func checkContainer(c corev1.Container) error {
	sc := c.SecurityContext
	switch {
	case sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
		return fmt.Errorf("want securityContext.allowPrivilegeEscalation: false")
	case sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL"):
		return fmt.Errorf("want securityContext.capabilities.drop [ALL]")
	case len(sc.Capabilities.Add) > 0:
		return fmt.Errorf("adds capabilities %v", sc.Capabilities.Add)
	case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
		return fmt.Errorf("want securityContext.readOnlyRootFilesystem: true")
	case sc.Privileged != nil && *sc.Privileged:
		return fmt.Errorf("privileged")
	case sc.RunAsNonRoot != nil && !*sc.RunAsNonRoot:
		return fmt.Errorf("runAsNonRoot false")
	}
	if err := checkImage(c.Image); err != nil {
		return err
	}
	if c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() {
		return fmt.Errorf("want resources: a memory request and limit")
	}
	for _, a := range c.Args {
		if strings.HasPrefix(a, "--api-key") {
			return fmt.Errorf("passes --api-key in its args, where every pod listing shows it: use the Secret")
		}
	}
	for _, e := range c.Env {
		if e.Name == "OPENAI_API_KEY" {
			r := e.ValueFrom
			if e.Value != "" || r == nil || r.SecretKeyRef == nil || r.SecretKeyRef.Optional == nil || !*r.SecretKeyRef.Optional {
				return fmt.Errorf("OPENAI_API_KEY must come from an optional secretKeyRef")
			}
			return nil
		}
	}
	if len(c.Args) > 0 && c.Args[0] == "sweep" { // the one command that talks to the server
		return fmt.Errorf("no OPENAI_API_KEY from a Secret: users would put the key in the args")
	}
	return nil
}

// checkImage requires a pinned image: a tag other than latest, or a digest.
func checkImage(image string) error {
	if strings.Contains(image, "@sha256:") {
		return nil
	}
	name := image[strings.LastIndex(image, "/")+1:]
	_, tag, ok := strings.Cut(name, ":")
	if !ok || tag == "" || tag == "latest" {
		return fmt.Errorf("image %q is not pinned: give a tag other than latest, or a digest", image)
	}
	return nil
}
