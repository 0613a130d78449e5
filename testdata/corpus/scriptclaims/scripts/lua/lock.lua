-- Takes the key for one worker.
-- KEYS[1]: the key; ARGV[1]: the worker's token; ARGV[2]: the lease in ms
return redis.call("SET", KEYS[1], ARGV[1], "NX", "PX", ARGV[2])
