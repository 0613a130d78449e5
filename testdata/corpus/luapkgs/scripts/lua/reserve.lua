-- Reserves a shipment for one fulfilment attempt.
-- KEYS[1]: the reservation key
-- ARGV[1]: the attempt's token, ARGV[2]: the lease in milliseconds
if redis.call("SETNX", KEYS[1], ARGV[1]) == 1 then
    redis.call("PEXPIRE", KEYS[1], ARGV[2])
    return 1
end
return 0
