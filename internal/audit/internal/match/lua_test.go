package match

import "testing"

func TestLuaOp(t *testing.T) {
	for _, tc := range []struct {
		src string
		key int
		op  RedisOp
	}{
		{`if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end redis.call('SET', KEYS[1], 'processing', 'PX', ARGV[1]) return 1`, 1, RedisSetNX},
		{`return redis.call("SET", KEYS[1], ARGV[1], "NX", "PX", ARGV[2])`, 1, RedisSetNX},
		{`return redis.call('SETNX', KEYS[1], ARGV[1])`, 1, RedisSetNX},
		{`return redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])`, 1, RedisHSetNX},
		{"local key = KEYS[1]\nlocal v = redis.call('GET', key)\nif v then\n  return v\nend\nredis.call('SET', key, ARGV[1])\nreturn false", 1, RedisSetNX},
		{`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`, 1, RedisDel},
		{"local token = ARGV[1]\nif redis.call('get', KEYS[1]) == token then\n -- the owner\n return redis.call('del', KEYS[1])\nend\nreturn 0", 1, RedisDel},
		{`return redis.call('DEL', KEYS[1])`, 1, RedisDel},
		{`redis.call('SET', KEYS[1], 'done', 'EX', ARGV[1]) return 1`, 1, RedisSet},
		{`return redis.call('GET', KEYS[1])`, 1, RedisGet},
		{`return redis.call('EXISTS', KEYS[1])`, 1, RedisExists},
		// tests written as expressions, aliases taken two at a time,
		// pcall, SETNX or HSETNX with an expiry, GETSET: claims
		{`return redis.call('exists',KEYS[1])<1 and redis.call('setex',KEYS[1],ARGV[2],ARGV[1])`, 1, RedisSetNX},
		{`return redis.call('EXISTS', KEYS[1]) == 0 and redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2]) ~= false`, 1, RedisSetNX},
		{"local key, ttl = KEYS[1], ARGV[1]\nif redis.call('EXISTS', key) == 1 then return 0 end\nredis.call('SET', key, '1', 'EX', ttl)\nreturn 1", 1, RedisSetNX},
		{`local ok = redis.pcall("set",KEYS[1],ARGV[1],"nx","px",ARGV[2]) if ok then return 1 end return 0`, 1, RedisSetNX},
		{`if redis.call("SETNX", KEYS[1], ARGV[1]) == 1 then return redis.call("PEXPIRE", KEYS[1], ARGV[2]) else return 0 end`, 1, RedisSetNX},
		{`local r = redis.call('HSETNX', KEYS[1], 'owner', ARGV[1]) if r == 1 then redis.call('EXPIRE', KEYS[1], 60) end return r`, 1, RedisHSetNX},
		{`if (redis.call('exists', KEYS[1]) == 0) then redis.call('hset', KEYS[1], 'state', ARGV[1]) return 1 end return 0`, 1, RedisSetNX},
		{`return redis.call('GETSET', KEYS[1], ARGV[1])`, 1, RedisSetNX},
		{`local old = redis.call('SET', KEYS[1], 'done', 'GET') if old then return 0 end return 1`, 1, RedisSetNX},
		{`return redis.call('get', KEYS[1]) == ARGV[1] and redis.call('del', KEYS[1])`, 1, RedisDel},
		// a GETSET whose old value is dropped, a read given a default: no test
		{`redis.call('GETSET', KEYS[1], ARGV[1]) return 1`, 1, RedisSet},
		{`local seen = redis.call('GET', KEYS[1]) or '' redis.call('SET', KEYS[1], seen .. ARGV[1]) return 1`, 1, 0},
		{`return redis.call('get', KEYS[1]) == ARGV[1] and redis.call('pexpire', KEYS[1], ARGV[2])`, 1, 0},
		// neither: a counter, a compare-and-set, a lease extension, a
		// test whose script says nothing back
		{`local n = redis.call('INCR', KEYS[1]) if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end return n`, 1, 0},
		{`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('SET', KEYS[1], ARGV[2]) end return 0`, 1, 0},
		{`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`, 1, 0},
		{`local v = redis.call('GET', KEYS[1]) redis.call('DEL', KEYS[1])`, 1, 0},
	} {
		keys, returns := luaKeys(tc.src)
		var got RedisOp
		if k := keys[tc.key]; k != nil {
			got = k.op(returns)
		}
		if got != tc.op {
			t.Errorf("%q: KEYS[%d] is %v, want %v", tc.src, tc.key, got, tc.op)
		}
	}
}

func TestLuaNilTaken(t *testing.T) {
	for src, want := range map[string]bool{
		`return redis.call("SET", KEYS[1], ARGV[1], "NX", "EX", ARGV[2])`:                           true,
		`local ok = redis.call("SET", KEYS[1], ARGV[1], "NX") if not ok then return 0 end return 1`: false,
	} {
		keys, _ := luaKeys(src)
		if got := keys[1].nilTaken; got != want {
			t.Errorf("%q: nilTaken %v, want %v", src, got, want)
		}
	}
}
