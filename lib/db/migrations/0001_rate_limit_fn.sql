-- Atomic rolling-window rate limit. One row per key holds per-second buckets of the last 60 seconds;
-- the row lock serialises concurrent callers, so N simultaneous requests against a limit L give exactly
-- min(N, L) admissions, across any number of server processes.
-- Returns: allowed, remaining (after this request), retry_after_s (seconds until a slot frees when refused),
-- reset_at_s (unix second at which the oldest counted request leaves the window).
CREATE OR REPLACE FUNCTION rate_limit_take(p_key text, p_limit integer, p_now_ms bigint)
RETURNS TABLE (allowed boolean, remaining integer, retry_after_s integer, reset_at_s bigint)
LANGUAGE plpgsql AS $$
DECLARE
  now_s bigint := p_now_ms / 1000;
  secs bigint[];
  cnts integer[];
  keep_secs bigint[] := '{}';
  keep_cnts integer[] := '{}';
  total integer := 0;
  i integer;
  oldest bigint;
BEGIN
  INSERT INTO rate_limits (key, seconds, counts) VALUES (p_key, '{}', '{}') ON CONFLICT (key) DO NOTHING;
  SELECT r.seconds, r.counts INTO secs, cnts FROM rate_limits r WHERE r.key = p_key FOR UPDATE;
  IF secs IS NOT NULL THEN
    FOR i IN 1 .. coalesce(array_length(secs, 1), 0) LOOP
      IF secs[i] > now_s - 60 THEN
        keep_secs := keep_secs || secs[i];
        keep_cnts := keep_cnts || cnts[i];
        total := total + cnts[i];
      END IF;
    END LOOP;
  END IF;
  IF total < p_limit THEN
    IF coalesce(array_length(keep_secs, 1), 0) > 0 AND keep_secs[array_length(keep_secs, 1)] = now_s THEN
      keep_cnts[array_length(keep_cnts, 1)] := keep_cnts[array_length(keep_cnts, 1)] + 1;
    ELSE
      keep_secs := keep_secs || now_s;
      keep_cnts := keep_cnts || 1;
    END IF;
    total := total + 1;
    allowed := true;
  ELSE
    allowed := false;
  END IF;
  UPDATE rate_limits SET seconds = keep_secs, counts = keep_cnts WHERE key = p_key;
  oldest := keep_secs[1];
  remaining := greatest(p_limit - total, 0);
  reset_at_s := coalesce(oldest, now_s) + 60;
  retry_after_s := CASE WHEN allowed THEN 0 ELSE greatest((reset_at_s * 1000 - p_now_ms + 999) / 1000, 1)::integer END;
  RETURN NEXT;
END;
$$;
