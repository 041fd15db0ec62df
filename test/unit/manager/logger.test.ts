import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatLogLine } from "../../../src/manager/internal/pretty.ts";
import { createLogger, type LoggerOptions } from "../../../src/manager/logger.ts";

const time = new Date(2026, 0, 2, 3, 4, 5, 67).getTime();

function record(fields: Record<string, unknown>): string {
  return `${JSON.stringify({ level: 30, time, pid: 1, hostname: "h", name: "greetings", ...fields })}\n`;
}

/** A logger writing into an array, as `createLogger` makes it with `options`. */
function capture(options: LoggerOptions) {
  const lines: string[] = [];
  const logger = createLogger("greetings", {
    env: {},
    output: { write: (s) => void lines.push(s) },
    ...options,
  });
  return { logger, lines };
}

describe("formatLogLine", () => {
  it("reads as time, level, logger name and message, then the other fields as key=value", () => {
    const line = record({ msg: "reconciled", controller: "greeting", object: "hello", seconds: 0.5 });
    assert.equal(
      formatLogLine(line, false),
      "03:04:05.067 INFO  greetings: reconciled controller=greeting object=hello seconds=0.5\n",
    );
  });

  it("quotes strings with spaces and writes objects as JSON", () => {
    const line = record({ level: 40, msg: "m", reason: "two words", triggers: [{ reason: "resync" }] });
    assert.match(
      formatLogLine(line, false),
      / WARN {2}greetings: m reason="two words" triggers=\[\{"reason":"resync"\}\]\n$/,
    );
  });

  it("puts an error's stack on the lines below, indented", () => {
    const err = { type: "Error", message: "boom", stack: "Error: boom\n    at reconcile (x.ts:1:1)" };
    const text = formatLogLine(record({ level: 50, msg: "reconcile failed", err }), false);
    assert.equal(text.split("\n")[0]?.endsWith("ERROR greetings: reconcile failed"), true);
    assert.equal(text.split("\n")[1], "    Error: boom");
    assert.equal(text.split("\n")[2], "        at reconcile (x.ts:1:1)");
  });

  it("puts only the message and code of an error a user can cause (KL_...) below, no stack", () => {
    const err = {
      type: "UnreachableError",
      code: "KL_UNREACHABLE",
      message:
        "cannot reach the API server at https://127.0.0.1:6443 (ECONNREFUSED). Is the cluster running?",
      stack: "UnreachableError: cannot reach\n    at request (client.ts:1:1)",
    };
    const text = formatLogLine(record({ level: 50, msg: "manager failed", err }), false);
    assert.deepEqual(text.split("\n").slice(1), [`    ${err.message} (KL_UNREACHABLE)`, ""]);
  });

  it("colours only the level when asked, and keeps a line that is not JSON as it is", () => {
    assert.ok(
      formatLogLine(record({ msg: "m" }), true).endsWith(" \u001b[32mINFO \u001b[39m greetings: m\n"),
    );
    assert.equal(formatLogLine("not json\n", true), "not json\n");
  });
});

describe("createLogger", () => {
  it("writes JSON carrying the operator's name, at LOG_LEVEL", () => {
    const { logger, lines } = capture({ pretty: false, env: { LOG_LEVEL: "warn" } });
    logger.info("hidden");
    logger.child({ controller: "greeting", object: "hello" }).warn("shown");
    assert.equal(lines.length, 1);
    const written = JSON.parse(lines[0] ?? "") as Record<string, unknown>;
    assert.deepEqual([written.name, written.object, written.msg], ["greetings", "hello", "shown"]);
  });

  it("writes readable lines when pretty, coloured unless NO_COLOR is set", () => {
    const plain = capture({ pretty: true, env: { NO_COLOR: "1" } });
    plain.logger.info({ object: "hello" }, "reconciled");
    assert.match(
      plain.lines[0] ?? "",
      /^\d\d:\d\d:\d\d\.\d{3} INFO {2}greetings: reconciled object=hello\n$/,
    );
    const coloured = capture({ pretty: true });
    coloured.logger.info("reconciled");
    assert.ok(coloured.lines[0]?.includes("\u001b[32mINFO"));
  });
});
