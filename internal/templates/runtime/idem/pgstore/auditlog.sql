-- The audit log of pgstore. {{table}} is replaced by a quoted identifier. The runtime never
-- deletes a row: the business decides how long its records are kept.
CREATE TABLE IF NOT EXISTS {{table}} (
    operation    text        NOT NULL,
    key          text        NOT NULL,
    status       integer     NOT NULL,
    completed_at timestamptz NOT NULL,
    PRIMARY KEY (operation, key)
);
