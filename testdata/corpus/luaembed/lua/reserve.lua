-- reserve.lua: SET NX with a TTL in milliseconds; nil when the key is held.
return redis.call("SET", KEYS[1], ARGV[1], "NX", "PX", ARGV[2])
