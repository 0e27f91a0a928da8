/**
 * Lua run atomically inside Redis, so two gateway instances never both take the last slot.
 * Time is Redis's own (`TIME`), so instances with skewed clocks still share one window.
 *
 * ACQUIRE  KEYS: rpm zset, concurrency zset, month counter, month-loaded marker,
 *                key rpm zset, key spend counter (micro-USD), key-spend-loaded marker
 *          ARGV: rpm limit, concurrency limit, token cap (-1 = none), lease id, lease ttl ms, window ms,
 *                key rpm limit (-1 = none), key spend cap in micro-USD (-1 = none)
 *          → {code, a, b, c, d}: code 0 ok (a = requests in window incl. this one, b = oldest in window, ms ago,
 *            c, d the same for the key's window); 1 rpm (a = ms until a slot frees, b = in window);
 *            2 concurrency (a = in window, b = oldest ms ago); 3 month (a = used); 4 key rpm (a = ms until a
 *            slot frees); 5 key spend (a = spent); -1 month not loaded yet; -2 key spend not loaded yet.
 */
export const ACQUIRE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rpm = tonumber(ARGV[1])
local conc = tonumber(ARGV[2])
local cap = tonumber(ARGV[3])
local ttl = tonumber(ARGV[5])
local window = tonumber(ARGV[6])
if cap >= 0 then
  if redis.call('EXISTS', KEYS[4]) == 0 then return {-1, 0, 0} end
  local used = tonumber(redis.call('GET', KEYS[3]) or '0')
  if used >= cap then return {3, used, 0} end
end
local keyRpm = tonumber(ARGV[7] or '-1')
local keyCap = tonumber(ARGV[8] or '-1')
if keyCap >= 0 then
  if redis.call('EXISTS', KEYS[7]) == 0 then return {-2, 0, 0} end
  local spent = tonumber(redis.call('GET', KEYS[6]) or '0')
  if spent >= keyCap then return {5, spent, 0} end
end
local count = 0
local oldestAgo = 0
if rpm >= 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
  count = redis.call('ZCARD', KEYS[1])
  if count > 0 then
    local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
    oldestAgo = now - tonumber(oldest[2])
  end
  if count >= rpm then return {1, window - oldestAgo, count} end
end
local keyCount = 0
local keyOldestAgo = 0
if keyRpm >= 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', now - window)
  keyCount = redis.call('ZCARD', KEYS[5])
  if keyCount > 0 then
    local oldest = redis.call('ZRANGE', KEYS[5], 0, 0, 'WITHSCORES')
    keyOldestAgo = now - tonumber(oldest[2])
  end
  if keyCount >= keyRpm then return {4, window - keyOldestAgo, keyCount} end
end
if conc >= 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  if redis.call('ZCARD', KEYS[2]) >= conc then return {2, count, oldestAgo} end
  redis.call('ZADD', KEYS[2], now + ttl, ARGV[4])
  redis.call('PEXPIRE', KEYS[2], ttl * 2)
end
if rpm >= 0 then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], window)
  count = count + 1
end
if keyRpm >= 0 then
  redis.call('ZADD', KEYS[5], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[5], window)
  keyCount = keyCount + 1
end
return {0, count, oldestAgo, keyCount, keyOldestAgo}
`;

/** Pushes a live lease's expiry forward; a lease already gone (expired, released) stays gone. KEYS: zset. ARGV: id, ttl ms. */
export const REFRESH_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
local updated = redis.call('ZADD', KEYS[1], 'XX', 'CH', now + ttl, ARGV[1])
redis.call('PEXPIRE', KEYS[1], ttl * 2)
return updated
`;

/** Seeds the month counter from recorded usage once. KEYS: counter, marker. ARGV: tokens, ttl ms. */
export const INIT_MONTH_SCRIPT = `
if redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[2]) then
  redis.call('INCRBY', KEYS[1], ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
`;

/**
 * Settles one account's finished requests in one call: frees their concurrency slots and counts
 * what they used, each counter only once its month is seeded (before that, the recorded usage read
 * at seeding covers it). ARGV[1]: n, the counters. KEYS: n pairs (counter, marker), then one
 * concurrency zset per freed slot; ARGV after n: the n amounts, then the freed lease ids. Every key
 * is in the account's slot.
 */
export const SETTLE_SCRIPT = `
local n = tonumber(ARGV[1])
for i = 1, n do
  if redis.call('EXISTS', KEYS[i * 2]) == 1 then redis.call('INCRBY', KEYS[i * 2 - 1], ARGV[i + 1]) end
end
for j = 2 * n + 1, #KEYS do
  redis.call('ZREM', KEYS[j], ARGV[j - n + 1])
end
return 0
`;
