-- The transactional outbox of pgstore. {{table}} and {{index}} are replaced by quoted identifiers.
CREATE TABLE IF NOT EXISTS {{table}} (
    id         text        PRIMARY KEY,
    topic      text        NOT NULL,
    payload    bytea       NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    -- Set once published; the relay reads only unsent rows.
    sent_at    timestamptz
);
CREATE INDEX IF NOT EXISTS {{index}} ON {{table}} (created_at) WHERE sent_at IS NULL;
