package sessions

import (
	"github.com/toksweep/toksweep/sweep"
	"github.com/toksweep/toksweep/workload"
)

// agent is an agentic dataset's session as the engine plays it
// (sweep.Agent): its tool waits, and its sub-sessions as agents too.
type agent struct{ *workload.Session }

var (
	_ sweep.Agent    = agent{}
	_ sweep.Prefixed = agent{}
)

// Opener is how the engine opens ss's sessions (sweep.Sessions.Open):
// each as open makes it.
func Opener(ss *workload.Sessions) func() sweep.Conversation {
	return func() sweep.Conversation { return open(ss.Open()) }
}

// open is s as the engine plays it: an agent when it has tool waits or
// sub-sessions, else the plain session.
func open(s *workload.Session) sweep.Conversation {
	if s.Agentic() {
		return agent{s}
	}
	return s
}

// Branch is the session's, each sub-session opened as open does.
func (a agent) Branch(k int, replies []string) ([]sweep.Conversation, bool) {
	subs, parallel := a.Session.Branch(k, replies)
	out := make([]sweep.Conversation, len(subs))
	for i, s := range subs {
		out[i] = open(s)
	}
	return out, parallel
}
