//go:build !unix

package sweep

import "time"

// processCPU is not measured outside Unix: Health.CPUSeconds stays 0, which
// the client-limit checks read as "not measured".
func processCPU() time.Duration { return 0 }
