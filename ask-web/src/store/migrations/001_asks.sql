-- The first schema of the inbox's store: who asks, what they asked, the outcome the person
-- gave and whether the agent has it, and the digest of the capability the agent holds.

-- Each agent (its name and working folder) once.
CREATE TABLE agents (
    id INTEGER PRIMARY KEY,
    name TEXT,
    folder TEXT
);
CREATE INDEX agents_by_name ON agents (name, folder);

-- Each ask, in the order it arrived (`seq`).
CREATE TABLE asks (
    seq INTEGER PRIMARY KEY,
    -- The request id the page answers with.
    id TEXT NOT NULL UNIQUE,
    agent INTEGER NOT NULL REFERENCES agents (id),
    -- The questions, as JSON.
    questions TEXT NOT NULL,
    -- The answers given before the ask reached the inbox, as JSON (never a secret one).
    given TEXT,
    -- When the ask arrived, in milliseconds since the Unix epoch.
    since INTEGER NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('waiting', 'answered', 'cancelled', 'withdrawn')),
    -- When the ask ended for good (its outcome delivered, or withdrawn), in milliseconds
    -- since the Unix epoch; NULL while it may still need the inbox.
    ended_at INTEGER
);
CREATE INDEX asks_open ON asks (seq) WHERE ended_at IS NULL;
CREATE INDEX asks_ended ON asks (ended_at) WHERE ended_at IS NOT NULL;
CREATE INDEX asks_by_agent ON asks (agent);

-- The outcome of an ask that was answered or cancelled.
CREATE TABLE outcomes (
    ask INTEGER PRIMARY KEY REFERENCES asks (seq) ON DELETE CASCADE,
    -- The answers as JSON, without those of secret questions; NULL when cancelled.
    answers TEXT,
    -- 1 once the agent confirmed it has the outcome.
    delivered INTEGER NOT NULL CHECK (delivered IN (0, 1))
);

-- The SHA-256, in hex, of the capability the ask's agent holds.
CREATE TABLE capabilities (
    ask INTEGER PRIMARY KEY REFERENCES asks (seq) ON DELETE CASCADE,
    digest TEXT NOT NULL
);

-- The highest number an `ask-N` id has taken, so that numbering goes on after old asks are
-- deleted.
CREATE TABLE numbering (
    one INTEGER PRIMARY KEY CHECK (one = 1),
    taken INTEGER NOT NULL
);
INSERT INTO numbering (one, taken) VALUES (1, 0);
