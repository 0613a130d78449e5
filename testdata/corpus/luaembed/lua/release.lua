-- release.lua: deletes KEYS[1] only while it holds the caller's marker.
if redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("DEL", KEYS[1])
end
return 0
