package redact

import (
	"encoding/json"
	"maps"
	"slices"
	"sync"
)

// Counters are one session's redaction counters (SAFETY.md): the policy
// version in force, how many values were redacted and how many outputs were
// blocked, in total, per class and per stage. They hold counts only, never
// values, and are safe for concurrent use.
type Counters struct {
	mu       sync.Mutex
	version  string
	redacted int64
	blocked  int64
	byClass  map[string]int64
	byStage  map[Stage]StageCount
}

// NewCounters returns zeroed counters for a session under policyVersion.
func NewCounters(policyVersion string) *Counters {
	return &Counters{version: policyVersion, byClass: map[string]int64{}, byStage: map[Stage]StageCount{}}
}

// Add counts the redactions of one call at a stage.
func (c *Counters) Add(stage Stage, s Stats) {
	if s.Redacted == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.redacted += int64(s.Redacted)
	for k, n := range s.ByClass {
		c.byClass[k] += int64(n)
	}
	sc := c.byStage[stage]
	sc.Redacted += int64(s.Redacted)
	c.byStage[stage] = sc
}

// Blocked counts one output blocked at a stage.
func (c *Counters) Blocked(stage Stage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.blocked++
	sc := c.byStage[stage]
	sc.Blocked++
	c.byStage[stage] = sc
}

// AddBlocked counts n outputs blocked at a stage (a native host's report
// of its source stage); n ≤ 0 counts nothing.
func (c *Counters) AddBlocked(stage Stage, n int64) {
	if n <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.blocked += n
	sc := c.byStage[stage]
	sc.Blocked += n
	c.byStage[stage] = sc
}

// Observe counts the outcome of one call: a non-nil err is a blocked
// output, anything else adds s.
func (c *Counters) Observe(stage Stage, s Stats, err error) {
	if err != nil {
		c.Blocked(stage)
		return
	}
	c.Add(stage, s)
}

// SetPolicyVersion records a policy change (counts carry on).
func (c *Counters) SetPolicyVersion(v string) {
	c.mu.Lock()
	c.version = v
	c.mu.Unlock()
}

// StageCount is what one stage redacted and blocked.
type StageCount struct {
	Redacted int64 `json:"redacted"`
	Blocked  int64 `json:"blocked"`
}

// Snapshot is a copy of the counters, shaped for configure
// {what:"redaction"} and the panel.
type Snapshot struct {
	PolicyVersion string               `json:"policy_version"`
	RedactedCount int64                `json:"redacted_count"`
	BlockedCount  int64                `json:"blocked_count"`
	ByClass       map[string]int64     `json:"by_class"`
	ByStage       map[Stage]StageCount `json:"by_stage"`
}

// ClassCount is one class's count in a Snapshot's JSON.
type ClassCount struct {
	Class string `json:"class"`
	Count int64  `json:"count"`
}

// MarshalJSON writes by_class as a list of {class, count}, sorted by
// class: as a map its keys would be class names such as "session_id" or
// "github_token", and the server stage redacts the value under a
// secret-sounding key — the counts would come back as markers.
func (s Snapshot) MarshalJSON() ([]byte, error) {
	type plain Snapshot
	classes := make([]ClassCount, 0, len(s.ByClass))
	for _, k := range slices.Sorted(maps.Keys(s.ByClass)) {
		classes = append(classes, ClassCount{k, s.ByClass[k]})
	}
	return json.Marshal(struct {
		plain
		ByClass []ClassCount `json:"by_class"`
	}{plain(s), classes})
}

// Snapshot returns a consistent copy of the counters.
func (c *Counters) Snapshot() Snapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Snapshot{
		PolicyVersion: c.version,
		RedactedCount: c.redacted,
		BlockedCount:  c.blocked,
		ByClass:       maps.Clone(c.byClass),
		ByStage:       maps.Clone(c.byStage),
	}
}
