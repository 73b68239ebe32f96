/**
 * Every domain's undo appliers, joined in one registry: the runner's writes
 * record changes with it and undo replays them through it (src/history). A
 * new domain adds its own here.
 */
import { documentInverses } from "../documents/inverse";
import { fileInverses } from "../files/inverse";
import { graphInverses } from "../graph/inverse";
import { inverseRegistry } from "../history";
import { archiveInverses } from "../priority/archive";
import { priorityInverses } from "../priority/mark";
import { mergeInverses } from "./merge";

export const INVERSES = inverseRegistry(graphInverses, fileInverses, documentInverses, archiveInverses, priorityInverses, mergeInverses);
