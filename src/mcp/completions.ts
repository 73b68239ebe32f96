/**
 * completion/complete: the `recall` prompt's `topic` and the templates'
 * `name`, `path` and `id` complete from the context's entities, files and
 * documents by prefix, ignoring ASCII case, best priority first, at most 100
 * (src/priority/complete.ts). Only what the connection's toolsets serve
 * completes; a prompt or template it does not serve is Invalid Params, as
 * the SDK answers one it does not know, and any other argument completes to
 * nothing.
 */
import type { McpServer } from "@modelcontextprotocol/server";
import type { ItemKind } from "../items";
import { runGuarded, invalid, servedKinds, unwrapped, type GuideScope } from "./guide";
import { TEMPLATES } from "./resources";

const NOTHING = { completion: { values: [], total: 0, hasMore: false } };

export function registerCompletions(server: McpServer, scope: GuideScope): void {
  const kinds = servedKinds(scope.toolsets);
  if (kinds.length === 0) return;
  /** "prompt:<name>" or "resource:<template>" → argument → the kind it names. */
  const targets = new Map<string, Map<string, ItemKind>>();
  if (kinds.includes("entity")) targets.set("prompt:recall", new Map([["topic", "entity"]]));
  targets.set("prompt:memory-guide", new Map());
  targets.set("prompt:brief", new Map());
  if (kinds.includes("entity")) targets.set("prompt:remember", new Map());
  for (const kind of kinds) targets.set(`resource:${TEMPLATES[kind].uriTemplate}`, new Map([[TEMPLATES[kind].variable, kind]]));

  server.server.registerCapabilities({ completions: {} });
  server.server.setRequestHandler("completion/complete", (request) =>
    runGuarded("completion/complete", async () => {
      const { ref, argument } = request.params;
      const target = ref.type === "ref/prompt" ? `prompt:${ref.name}` : `resource:${ref.uri}`;
      const args = targets.get(target);
      if (!args) throw invalid(ref.type === "ref/prompt" ? `Prompt ${ref.name} not found` : `Resource template ${ref.uri} not found`);
      const kind = args.get(argument.name);
      if (!kind) return NOTHING;
      const opened = await scope.open("completion/complete");
      return { completion: unwrapped(await opened.stub.completeItems(kind, argument.value, opened.meta)) };
    }),
  );
}
