import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { describe, it, type TestContext } from "node:test";
import { fileURLToPath } from "node:url";
import { pino } from "pino";
import { FakeClock } from "../../../src/clock/index.ts";
import { handleShutdownSignals, SAME_PRESS_MS } from "../../../src/manager/shutdown-signals.ts";

const fixture = fileURLToPath(new URL("./fixtures/run-manager.ts", import.meta.url));
const checkout = join(fileURLToPath(import.meta.url), "../../../..");

/** Signal handling installed in this process on a FakeClock, logging and exiting into arrays. */
function handled(t: TestContext) {
  const clock = new FakeClock();
  const messages: string[] = [];
  const exits: number[] = [];
  const logger = pino({}, { write: (line: string) => void messages.push(JSON.parse(line).msg) });
  const shutdown = new AbortController();
  t.after(handleShutdownSignals(logger, shutdown, { clock, exit: (code) => void exits.push(code) }));
  return { clock, messages, exits, shutdown };
}

/** The fixture in a process of its own, with stdout read as JSON log records. */
function runFixture(t: TestContext, mode: "graceful" | "stubborn") {
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const child = spawn(process.execPath, ["--import", "tsx", fixture, mode], { cwd: checkout, env });
  t.after(() => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL"));
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const records = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  /** Reads records until one has the message `msg`. */
  const logged = async (msg: string): Promise<Record<string, unknown>> => {
    for (let next = await records.next(); !next.done; next = await records.next()) {
      const record = JSON.parse(next.value) as Record<string, unknown>;
      if (record.msg === msg) return record;
    }
    throw new Error(`the fixture exited without logging "${msg}"; stderr: ${stderr}`);
  };
  return { child, logged, stderr: () => stderr };
}

async function exitOf(child: ChildProcess): Promise<number | null> {
  const [code] = (await once(child, "exit")) as [number | null];
  return code;
}

describe("handleShutdownSignals", () => {
  it("starts the shutdown on the first signal and takes its echo (npm start forwards it) for the same press", (t) => {
    const h = handled(t);
    process.emit("SIGTERM", "SIGTERM");
    h.clock.advance(SAME_PRESS_MS - 1);
    process.emit("SIGINT", "SIGINT");
    assert.equal(h.shutdown.signal.aborted, true);
    assert.deepEqual(h.messages, ["shutting down (press Ctrl-C again to force)"]);
    assert.deepEqual(h.exits, []);
  });

  it("exits with code 130 on a second press", (t) => {
    const h = handled(t);
    process.emit("SIGINT", "SIGINT");
    h.clock.advance(SAME_PRESS_MS);
    process.emit("SIGINT", "SIGINT");
    assert.deepEqual(h.messages, ["shutting down (press Ctrl-C again to force)", "forced exit"]);
    assert.deepEqual(h.exits, [130]);
  });
});

describe("runManager and signals, in a process of its own", { timeout: 30_000 }, () => {
  it("shuts down gracefully on the first signal, saying how to force it", async (t) => {
    const { child, logged, stderr } = runFixture(t, "graceful");
    await logged("started");
    child.kill("SIGTERM");
    const record = await logged("shutting down (press Ctrl-C again to force)");
    assert.deepEqual([record.name, record.signal], ["fixture", "SIGTERM"]);
    assert.equal(await exitOf(child), 0);
    assert.equal(stderr(), "", "no warning from Node or anything else");
  });

  it("exits at once with code 130 on a second Ctrl-C while the shutdown hangs", async (t) => {
    const { child, logged, stderr } = runFixture(t, "stubborn");
    await logged("started");
    child.kill("SIGINT");
    await logged("shutting down (press Ctrl-C again to force)");
    const pressing = setInterval(() => child.kill("SIGINT"), 100);
    t.after(() => clearInterval(pressing));
    assert.equal((await logged("forced exit")).signal, "SIGINT");
    assert.equal(await exitOf(child), 130);
    assert.equal(stderr(), "", "no warning from Node or anything else");
  });
});
