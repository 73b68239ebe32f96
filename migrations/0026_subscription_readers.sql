-- Live subscriptions count against their reader (docs/team.md#live-subscriptions):
-- the token behind the caller (an API token's id, also for an OAuth grant it
-- consented to), else admin or local, as the brief's reader is
-- (src/history/since.ts). A reader holds at most LIMITS.subscriptionsPerCaller
-- rows in a context, whatever session ids it makes up. Rows from before this
-- migration have no reader (''), count against none, and go when idle.
ALTER TABLE subscriptions ADD COLUMN reader TEXT NOT NULL DEFAULT '';
CREATE INDEX subscriptions_by_reader ON subscriptions (reader);
