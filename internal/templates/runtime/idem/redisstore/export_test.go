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
