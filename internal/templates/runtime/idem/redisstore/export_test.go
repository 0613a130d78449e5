package redisstore

// ScriptsOnly makes s complete through its scripts, as on a server whose SET has no IFEQ, so that
// the suites run the scripts whatever server they are pointed at.
func ScriptsOnly(s *Store) *Store {
	s.noIfEqual.Store(true)
	return s
}

// StageAll makes s stage every completed record it can, whatever the size of its response, so
// that the suites run the staged complete (completeStagedScript) on small responses too. Only a
// complete through a script stages, so it makes s ScriptsOnly too.
func StageAll(s *Store) *Store {
	s.stageAbove = -1
	return ScriptsOnly(s)
}

// IfEqualRefused says whether s has found that its server's SET has no IFEQ.
func IfEqualRefused(s *Store) bool { return s.noIfEqual.Load() }

// Batches is how many batches of queued commands s has sent in one pipeline each, or -1 when s
// does not batch.
func Batches(s *Store) int64 {
	if s.batch == nil {
		return -1
	}
	return s.batch.batches.Load()
}

// InFlightOf is how many round trips s's batcher has out, and how many commands wait.
func InFlightOf(s *Store) (out, queued int) {
	if s.batch == nil {
		return 0, 0
	}
	s.batch.mu.Lock()
	defer s.batch.mu.Unlock()
	return s.batch.inFlight, len(s.batch.queue)
}

// MaxInFlight is maxInFlight.
const MaxInFlight = maxInFlight

// Unbatched makes s send each command in a round trip of its own, as Options.Unbatched does.
func Unbatched(s *Store) *Store {
	s.batch = nil
	return s
}
