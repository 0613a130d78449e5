// The go directive and the requirements of idemkit's go.mod that the runtime's imports need.
// Kept in step by TestRuntimeModMatchesGoMod: go test ./internal/templates -run TestRuntimeModMatchesGoMod -update
module github.com/idemkit/idemkit

go 1.26.0

require (
	github.com/dunglas/httpsfv v1.1.2
	github.com/jackc/pgx/v5 v5.12.0
	github.com/redis/go-redis/v9 v9.23.0
)
