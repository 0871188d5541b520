package rundir

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"time"

	"github.com/toksweep/toksweep/internal/atomicfile"
)

// ShardFile is the file a shard of a sharded sweep writes beside its run's
// files: who it is, the plan it ran, and how its clock relates to the
// others', so that 'toksweep merge' can check the set and put every record
// on one timeline.
const ShardFile = "shard.json"

// ShardInfo is shard.json.
type ShardInfo struct {
	Index         int    `json:"shard"`          // i, 0-based
	Count         int    `json:"shards"`         // N
	StartAt       string `json:"start_at"`       // level 0's start instant, RFC 3339
	LevelDuration string `json:"level_duration"` // D
	Grace         string `json:"grace"`          // G
	Levels        []int  `json:"levels"`         // the whole run's concurrency levels
	// Rates are an open-loop run's offered rates (each shard sends its part
	// of every rate's arrival plan); Levels is then empty.
	Rates []float64 `json:"rates,omitempty"`
	// Workers is this shard's part of each level, in run order.
	Workers []int `json:"workers"`
	// EpochUnixNS is the wall-clock time of the shard's record epoch: a
	// record instant t (an offset on the shard's monotonic clock) happened
	// at wall time EpochUnixNS + t. The merge shifts every shard's records
	// by the difference of their epochs.
	EpochUnixNS int64 `json:"epoch_unix_ns"`
	// WallMinusMonoNS is, when the shard finished, wall time minus
	// (epoch + monotonic time since the epoch): how far the wall clock was
	// stepped or slewed during the run. Zero until the shard finishes.
	WallMinusMonoNS int64     `json:"wall_minus_mono_ns"`
	Clock           ClockSync `json:"clock"`
}

// ClockSync is the clock-sync quality the kernel reported (adjtimex).
type ClockSync struct {
	Known      bool  `json:"known"`        // false: not measured on this platform
	Synced     bool  `json:"synced"`       // the kernel considers the clock synchronised
	EstErrorUS int64 `json:"est_error_us"` // estimated error, µs
	MaxErrorUS int64 `json:"max_error_us"` // maximum error, µs
}

// Error is the clock error the merge bounds: the estimated error of a
// synchronised clock; unknown or unsynchronised is infinite.
func (c ClockSync) Error() time.Duration {
	// A negative error, or one whose nanoseconds overflow (9.3e15 µs
	// wrapped to a negative value that passed), is no measurement.
	if !c.Known || !c.Synced || c.EstErrorUS < 0 || c.EstErrorUS > math.MaxInt64/int64(time.Microsecond) {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(c.EstErrorUS) * time.Microsecond
}

// WriteShardInfo writes dir/shard.json atomically.
func WriteShardInfo(dir string, s ShardInfo) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(filepath.Join(dir, ShardFile), append(b, '\n'))
}

// ReadShardInfo reads dir/shard.json.
func ReadShardInfo(dir string) (ShardInfo, error) {
	var s ShardInfo
	b, err := readRunFile(filepath.Join(dir, ShardFile))
	if err != nil {
		return s, fmt.Errorf("%s is not a shard of a sharded run: %w", dir, err)
	}
	if s, err = decodeShardInfo(b); err != nil {
		return s, fmt.Errorf("%s: %s: %w", dir, ShardFile, err)
	}
	return s, nil
}

// decodeShardInfo decodes shard.json, refusing unknown fields.
func decodeShardInfo(b []byte) (ShardInfo, error) {
	var s ShardInfo
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	err := dec.Decode(&s)
	return s, err
}
