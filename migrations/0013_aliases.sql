-- Aliases (merge_entities, src/graph/aliases.ts): the names of entities
-- merged into another, kept so a read by the old name finds the survivor and
-- a create of it is refused.
--
-- alias      the merged entity's exact name; no entity has it (merge deletes
--            the entity, create_entities and import refuse the name)
-- alias_key  the alias in find_duplicates' normal form (src/graph/names.ts),
--            so search_nodes finds the survivor by a variant of the old name
-- entity_id  the survivor; deleting it deletes its aliases (recorded, so an
--            undo brings them back with it)
CREATE TABLE entity_aliases (
  alias      TEXT    NOT NULL PRIMARY KEY,
  alias_key  TEXT    NOT NULL,
  entity_id  INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX entity_aliases_by_entity ON entity_aliases (entity_id);
CREATE INDEX entity_aliases_by_key ON entity_aliases (alias_key);
