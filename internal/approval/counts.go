package approval

// Counts are how a session's gated calls (mutating or sensitive) went:
// how many asked the user, and how many ran without asking because the
// policy, a grant or the plan covered them. A retry with approval_id is
// the same call, counted once.
type Counts struct {
	Calls    int `json:"calls"`              // gated calls made
	Asked    int `json:"asked"`              // prompts: requests shown to the user
	ByPlan   int `json:"covered_by_plan"`    // ran without asking: the approved plan
	ByGrant  int `json:"covered_by_grant"`   // ran without asking: a grant
	ByPolicy int `json:"allowed_by_policy"`  // ran without asking: a policy rule
	Approved int `json:"approved"`           // asked, and the user said yes
	Refused  int `json:"refused"`            // the user said no, or the policy denies it
	Expired  int `json:"expired_unanswered"` // asked, and nobody answered in time
}

// count is one outcome to add.
type count int

const (
	cCall count = iota
	cAsked
	cPlan
	cGrant
	cPolicy
	cApproved
	cRefused
	cExpired
)

func (c *Counts) add(k count) {
	switch k {
	case cCall:
		c.Calls++
	case cAsked:
		c.Asked++
	case cPlan:
		c.ByPlan++
	case cGrant:
		c.ByGrant++
	case cPolicy:
		c.ByPolicy++
	case cApproved:
		c.Approved++
	case cRefused:
		c.Refused++
	case cExpired:
		c.Expired++
	}
}

// countLocked adds one outcome to a session's counts and the total.
func (s *state) countLocked(sessionID string, k count) {
	if sessionID == "" {
		return
	}
	c := s.counts[sessionID]
	if c == nil {
		c = &Counts{}
		s.counts[sessionID] = c
	}
	c.add(k)
	s.total.add(k)
}

func (s *state) count(sessionID string, k count) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.countLocked(sessionID, k)
}

// countsOf returns a copy of a session's counts ("" = every session, since
// the daemon started, ended sessions included).
func (s *state) countsOf(sessionID string) Counts {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sessionID == "" {
		return s.total
	}
	if c := s.counts[sessionID]; c != nil {
		return *c
	}
	return Counts{}
}

// allCounts returns every live session's counts.
func (s *state) allCounts() map[string]Counts {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]Counts, len(s.counts))
	for id, c := range s.counts {
		out[id] = *c
	}
	return out
}
