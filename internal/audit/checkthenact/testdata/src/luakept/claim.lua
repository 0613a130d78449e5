-- Takes KEYS[1] for ARGV[1] unless it is held; 1 when taken.
local held = redis.call("GET", KEYS[1])
if held then
  return 0
end
redis.call("SET", KEYS[1], ARGV[1], "EX", ARGV[2])
return 1
