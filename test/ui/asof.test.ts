/** The entity view's time travel, without the DOM: the "as of" picker and the superseded label (src/ui/client/asof.ts). */
import { describe, expect, it } from "vitest";
import { asOfFromPicker, heldLabel, pickerValue } from "../../src/ui/client/asof";
import { formatTime } from "../../src/ui/client/changes";

const NOW = Date.parse("2026-03-10T12:00:00Z");

describe("the as-of picker", () => {
  it("turns a picked local time into the ISO asOf open_nodes takes, and back", () => {
    const local = pickerValue("2026-03-01T09:30:00.000Z");
    expect(local).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/);
    expect(asOfFromPicker(local, NOW)).toBe("2026-03-01T09:30:00.000Z");
  });

  it("means now when empty or not a time, and never asks for the future", () => {
    expect(asOfFromPicker("", NOW)).toBeUndefined();
    expect(asOfFromPicker("not a time", NOW)).toBeUndefined();
    expect(asOfFromPicker(pickerValue("2027-01-01T00:00:00Z"), NOW)).toBe(new Date(NOW).toISOString());
  });

  it("labels a superseded observation with when it held", () => {
    const s = { text: "lives in Paris", addedAt: "2026-03-01T09:30:00.000Z", supersededAt: "2026-03-02T10:00:00.000Z" };
    expect(heldLabel(s)).toBe(`held ${formatTime(s.addedAt)} – ${formatTime(s.supersededAt)}`);
  });
});
