-- Fewer indexes to update per write (issue 27: loading a million entities).
--
-- relations_by_to (to_id) is a prefix of search_relations_by_to (to_id,
-- from_id) (0003_search.sql): every lookup of relations by to_id (graph
-- walks, open_nodes, deleting an entity, the foreign keys' cascade, degree
-- and cluster counts) is answered by the wider one, most of them from the
-- index alone. Keeping both cost one more scattered index insert per
-- relation and about 12 bytes per relation.
DROP INDEX relations_by_to;
