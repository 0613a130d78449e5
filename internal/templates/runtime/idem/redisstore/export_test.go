package redisstore

// StageAll makes s stage every completed record it can, whatever the size of its response, so
// that the suites run the staged complete (completeStagedScript) on small responses too.
func StageAll(s *Store) *Store {
	s.stageAbove = -1
	return s
}
