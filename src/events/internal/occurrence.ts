/** One call of the recorder, normalised: references built, fields cut to the apiserver's limits. */
import type { ObjectReference } from "../../api/index.ts";
import type { EventType } from "../options.ts";
import { type EventSubject, objectReference } from "../reference.ts";
import { fieldLengthLimit } from "./resolve.ts";

/** The apiserver's limit on `note`, in bytes of UTF-8. */
export const noteLengthLimit = 1024;

/** One occurrence of an event, ready to be keyed and written. */
export interface Occurrence {
  regarding: ObjectReference;
  related?: ObjectReference;
  type: EventType;
  reason: string;
  action: string;
  note: string;
  reportingController: string;
  reportingInstance: string;
}

/** What a caller passes for one event. */
export interface EventInput {
  regarding: EventSubject;
  related?: EventSubject;
  type: EventType;
  reason: string;
  action: string;
  note?: string;
}

/** Normalises `input`; throws a plain Error (which the recorder logs) when it cannot be an Event. */
export function toOccurrence(
  input: EventInput,
  reporter: Pick<Occurrence, "reportingController" | "reportingInstance">,
): Occurrence {
  const regarding = objectReference(input.regarding);
  if (!regarding.name) throw new Error("the regarding object has no name");
  if (input.type !== "Normal" && input.type !== "Warning")
    throw new Error(`type ${String(input.type)} is not Normal or Warning`);
  return {
    ...reporter,
    regarding,
    related: input.related ? objectReference(input.related) : undefined,
    type: input.type,
    reason: requireText("reason", input.reason, fieldLengthLimit),
    action: requireText("action", input.action, fieldLengthLimit),
    note: truncateUtf8(input.note ?? "", noteLengthLimit),
  };
}

function requireText(field: string, value: string, limit: number): string {
  if (typeof value !== "string" || value.length === 0)
    throw new Error(`${field} is empty; the apiserver requires it`);
  return truncateUtf8(value, limit);
}

/** Cuts `text` to at most `maxBytes` bytes of UTF-8 without splitting a character. */
export function truncateUtf8(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString("utf8");
}
