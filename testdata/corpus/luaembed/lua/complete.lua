-- complete.lua: stores the finished response under KEYS[1] for ARGV[2]
-- seconds, whatever the key held before.
redis.call("SET", KEYS[1], ARGV[1], "EX", ARGV[2])
return 1
