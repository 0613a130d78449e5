local cur = redis.call("GET", KEYS[1])
if cur then
  return 0
end
redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2])
return 1
