/**
 * Human-readable log lines for a terminal: pino's JSON records reformatted in the process, on the
 * stream pino writes to (no transport, no worker thread).
 *
 * `12:04:05.123 INFO  greetings: reconciled controller=greeting namespace=default object=hello`,
 * then an error's stack, indented, on the lines below; for an error a user can cause (a
 * `KubeloopError`, code `KL_...`), whose message names the cause and the fix, only that message.
 */
import type { DestinationStream } from "pino";

const levels: Record<number, { label: string; color: number }> = {
  10: { label: "TRACE", color: 90 },
  20: { label: "DEBUG", color: 36 },
  30: { label: "INFO", color: 32 },
  40: { label: "WARN", color: 33 },
  50: { label: "ERROR", color: 31 },
  60: { label: "FATAL", color: 35 },
};

/** A pino record as it arrives: the fields pino writes itself, then the caller's. */
interface LogRecord {
  level?: number;
  time?: number;
  name?: string;
  msg?: string;
  err?: { message?: string; stack?: string; code?: unknown };
  [key: string]: unknown;
}

/**
 * Formats one pino JSON line for a person: local time, level, logger name, message, the other
 * fields as `key=value`, and an `err`'s stack below (a `KubeloopError`'s message and code alone). A line that is not JSON is kept as it is.
 */
export function formatLogLine(line: string, colors: boolean): string {
  let record: LogRecord;
  try {
    record = JSON.parse(line) as LogRecord;
  } catch {
    return line;
  }
  const { level = 30, time, name, msg = "", err, pid: _, hostname: __, ...fields } = record;
  const when = time === undefined ? "" : `${clockTime(time)} `;
  const head = `${when}${levelLabel(level, colors)} ${name ? `${name}: ` : ""}${msg}`;
  const rest = Object.entries(fields).map(([key, value]) => `${key}=${fieldValue(value)}`);
  return `${[head, ...rest].join(" ")}${errorLines(err)}\n`;
}

/** A stream for pino that writes each record to `output` as {@link formatLogLine} formats it. */
export function prettyStream(output: { write(text: string): unknown }, colors: boolean): DestinationStream {
  return { write: (line: string) => void output.write(formatLogLine(line, colors)) };
}

function clockTime(time: number): string {
  const date = new Date(time);
  const two = (n: number) => String(n).padStart(2, "0");
  const millis = String(date.getMilliseconds()).padStart(3, "0");
  return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}.${millis}`;
}

function levelLabel(level: number, colors: boolean): string {
  const { label, color } = levels[level] ?? { label: `L${level}`, color: 0 };
  const padded = label.padEnd(5);
  return colors ? `\u001b[${color}m${padded}\u001b[39m` : padded;
}

/** Strings bare unless they hold spaces, quotes or `=`; everything else as JSON. */
function fieldValue(value: unknown): string {
  if (typeof value === "string" && value !== "" && !/[\s"=]/.test(value)) return value;
  return JSON.stringify(value) ?? String(value);
}

function errorLines(err: LogRecord["err"]): string {
  const userCaused = typeof err?.code === "string" && err.code.startsWith("KL_");
  const text = userCaused ? `${err?.message} (${err?.code})` : (err?.stack ?? err?.message);
  return text ? `\n${text.replace(/^/gm, "    ")}` : "";
}
