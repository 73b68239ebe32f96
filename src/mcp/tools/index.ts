/** Every tool, in the order tools/list shows them. */
import type { ToolDef } from "../tool";
import add_context from "./add_context";
import add_observations from "./add_observations";
import create from "./create";
import create_entities from "./create_entities";
import create_relations from "./create_relations";
import delete_entities from "./delete_entities";
import delete_path from "./delete";
import delete_observations from "./delete_observations";
import delete_relations from "./delete_relations";
import get_active_context from "./get_active_context";
import list_contexts from "./list_contexts";
import mark_important from "./mark_important";
import memory_history from "./memory_history";
import memory_stats from "./memory_stats";
import get_document_tree from "./get_document_tree";
import insert from "./insert";
import open_nodes from "./open_nodes";
import read_document from "./read_document";
import read_graph from "./read_graph";
import recall from "./recall";
import remove_context from "./remove_context";
import search_nodes from "./search_nodes";
import set_active_context from "./set_active_context";
import undo from "./undo";
import search_documents from "./search_documents";
import update_document from "./update_document";
import rename from "./rename";
import restore from "./restore";
import str_replace from "./str_replace";
import view from "./view";
import update_observation from "./update_observation";
import find_duplicates from "./find_duplicates";
import merge_entities from "./merge_entities";

// Each tool infers its own argument types; the list holds them by the common shape.
export const TOOLS: readonly ToolDef[] = [
  create_entities,
  create_relations,
  add_observations,
  delete_entities,
  delete_observations,
  delete_relations,
  read_graph,
  search_nodes,
  open_nodes,
  update_observation,
  find_duplicates,
  merge_entities,
  recall,
  // contexts
  list_contexts,
  get_active_context,
  set_active_context,
  add_context,
  remove_context,
  // history
  memory_history,
  undo,
  // documents
  read_document,
  update_document,
  get_document_tree,
  search_documents,
  // files
  view,
  create,
  str_replace,
  insert,
  delete_path,
  rename,
  // priority
  mark_important,
  memory_stats,
  restore,
];
