module example.com/shop

go 1.26

require github.com/redis/go-redis/v9 v9.0.0

// The buggy example's copy of go-redis's signatures: the two modules
// differ only in their fixes.
replace github.com/redis/go-redis/v9 => ../example/stubs/go-redis
