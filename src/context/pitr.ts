/**
 * Point-in-time recovery of a context object, step one: arrange for the
 * object's next start to restore its whole database (data and history alike)
 * to a bookmark. Step two is MemoryContext.restart(), which resets the object.
 * Only the deployed platform has PITR: local workerd (wrangler dev, tests)
 * answers `supported: false`. The HTTP side is src/api/pitr.ts.
 */

export type PitrPlan =
  | { supported: true; ok: true; bookmark: string; undoBookmark: string }
  | { supported: true; ok: false; message: string }
  | { supported: false; message: string };

export type PitrTarget = { at: number } | { bookmark: string };

export async function preparePitr(storage: DurableObjectStorage, target: PitrTarget): Promise<PitrPlan> {
  try {
    const undoBookmark = await storage.getCurrentBookmark();
    const bookmark = "bookmark" in target ? target.bookmark : await storage.getBookmarkForTime(target.at);
    await storage.onNextSessionRestoreBookmark(bookmark);
    return { supported: true, ok: true, bookmark, undoBookmark };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // Local workerd only says so in its message; nothing else tells "unsupported" from "refused".
    if (/does not implement point-in-time recovery/i.test(message)) {
      return { supported: false, message: "Point-in-time recovery works only on the deployed Cloudflare platform, not under local workerd (wrangler dev, tests)." };
    }
    return { supported: true, ok: false, message: `The storage refused the restore: ${message}` };
  }
}
