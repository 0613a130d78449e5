-- The idempotency records of pgstore. {{table}} and {{index}} are replaced by quoted identifiers.
CREATE TABLE IF NOT EXISTS {{table}} (
    key              text        PRIMARY KEY,
    fingerprint      text        NOT NULL,
    state            text        NOT NULL CHECK (state IN ('in_progress', 'completed')),
    -- The holder's lease: set exactly while in progress.
    token            text,
    lease_expires_at timestamptz,
    -- When the record is forgotten; rows past it are ignored by every query and swept in batches.
    expires_at       timestamptz NOT NULL,
    claimed_at       timestamptz NOT NULL,
    -- Whether the current holder took the key over from one whose lease ran out.
    taken_over       boolean     NOT NULL DEFAULT false,
    -- The stored response: set exactly once completed.
    status           integer,
    headers          json,
    body             bytea,
    CHECK ((state = 'in_progress') = (token IS NOT NULL AND lease_expires_at IS NOT NULL)),
    CHECK ((state = 'completed') = (status IS NOT NULL))
);
CREATE INDEX IF NOT EXISTS {{index}} ON {{table}} (expires_at);
