-- Live subscriptions (docs/team.md#live-subscriptions): which resource URIs
-- each listening session asked to hear about (src/history/subscriptions.ts).
--
-- `listener` is the caller's stable id and the session's Mcp-Session-Id, so
-- one caller can never listen to another's session. `item` is the item key
-- the URI names (`entity:<name>`, `file:<path>`, `doc:<id>`), or "brief" for
-- memory://brief, which hears of every change. `uri` is kept as the client
-- wrote it: notifications carry it back unchanged. `seen_at` is the last
-- time the session subscribed or had its stream open; sessions idle past
-- the limit are dropped.
CREATE TABLE subscriptions (
  listener TEXT    NOT NULL,
  uri      TEXT    NOT NULL,
  item     TEXT    NOT NULL,
  seen_at  INTEGER NOT NULL,
  PRIMARY KEY (listener, uri)
) STRICT;
CREATE INDEX subscriptions_by_item ON subscriptions (item);
CREATE INDEX subscriptions_by_seen ON subscriptions (seen_at);
