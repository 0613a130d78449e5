-- lookup.lua: the stored marker or response, nil when there is none.
return redis.call("GET", KEYS[1])
