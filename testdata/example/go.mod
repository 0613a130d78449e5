module example.com/shop

go 1.26

require github.com/redis/go-redis/v9 v9.0.0

// A minimal copy of go-redis's signatures keeps the example buildable
// without a network; the checks know go-redis by its import path.
replace github.com/redis/go-redis/v9 => ./stubs/go-redis
