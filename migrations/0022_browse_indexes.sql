-- Browsing entities page by page (the web page's Entities tab, src/graph/browse.ts):
-- keyset pages by last update and by priority (marked first, then use), with
-- and without a type filter; by name the UNIQUE index already serves, and
-- entities_by_type_name serves it under a type filter.
CREATE INDEX entities_by_updated ON entities (updated_at, id);
CREATE INDEX entities_by_use ON entities (important, uses, id);
CREATE INDEX entities_by_type_name ON entities (entity_type, name);
CREATE INDEX entities_by_type_updated ON entities (entity_type, updated_at, id);
CREATE INDEX entities_by_type_use ON entities (entity_type, important, uses, id);
