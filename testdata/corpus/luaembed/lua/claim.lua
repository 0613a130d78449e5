-- claim.lua: takes KEYS[1] for the caller unless a previous request holds
-- it or finished it. ARGV[1] is the in-progress marker, ARGV[2] its TTL in
-- seconds. Returns 1 when taken, 0 otherwise.
local current = redis.call("GET", KEYS[1])
if current then
  return 0
end
redis.call("SET", KEYS[1], ARGV[1], "EX", ARGV[2])
return 1
