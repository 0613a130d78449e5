-- KEYS[1]: the key; ARGV[1]: the holder; ARGV[2]: the lease in ms
local key, holder, lease = KEYS[1], ARGV[1], ARGV[2]
if redis.call('EXISTS', key) == 1 then
  return 0
end
redis.call('SET', key, holder, 'PX', lease)
return 1
