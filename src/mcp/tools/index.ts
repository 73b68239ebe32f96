/** Every tool, in the order tools/list shows them. */
import type { ToolDef } from "../tool";
import add_observations from "./add_observations";
import create from "./create";
import create_entities from "./create_entities";
import create_relations from "./create_relations";
import delete_entities from "./delete_entities";
import delete_path from "./delete";
import delete_observations from "./delete_observations";
import delete_relations from "./delete_relations";
import insert from "./insert";
import open_nodes from "./open_nodes";
import read_graph from "./read_graph";
import rename from "./rename";
import search_nodes from "./search_nodes";
import str_replace from "./str_replace";
import view from "./view";

// Each tool infers its own argument types; the registry only needs the common shape.
export const TOOLS = [
  create_entities,
  create_relations,
  add_observations,
  delete_entities,
  delete_observations,
  delete_relations,
  read_graph,
  search_nodes,
  open_nodes,
  view,
  create,
  str_replace,
  insert,
  delete_path,
  rename,
] as unknown as ToolDef[];
