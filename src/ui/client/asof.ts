/**
 * The entity view's time travel, without the DOM: the "as of" picker's value
 * as the asOf open_nodes takes, and how a superseded observation is labelled.
 */
import { formatTime } from "./changes";

/** A superseded observation as open_nodes{includeSuperseded} returns it. */
export interface Superseded {
  text: string;
  addedAt: string;
  supersededAt: string;
}

/**
 * A `datetime-local` value ("2026-03-01T12:30", the viewer's time zone) as
 * an ISO time for asOf; undefined when empty or not a time, meaning "now".
 * A time after `now` is clamped to it: the server refuses the future.
 */
export function asOfFromPicker(value: string, now = Date.now()): string | undefined {
  if (value.trim() === "") return undefined;
  const t = new Date(value).getTime();
  if (Number.isNaN(t)) return undefined;
  return new Date(Math.min(t, now)).toISOString();
}

/** The picker's value for an ISO time, in the viewer's time zone (minutes). */
export function pickerValue(iso: string): string {
  const d = new Date(iso);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** "held 2026-03-01 10:00:00 – 2026-03-02 09:30:00": when the superseded observation held. */
export const heldLabel = (s: Superseded) => `held ${formatTime(s.addedAt)} – ${formatTime(s.supersededAt)}`;
