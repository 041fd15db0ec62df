/** An operator that cannot start says why in one log line and exits 1, not with an unhandled rejection. */
import assert from "node:assert/strict";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { pino } from "pino";
import { defineOperator, runOperator } from "../../../src/operator/index.ts";

describe("runOperator, when the operator cannot start", () => {
  it("logs one error with the cause and sets the exit code to 1, without throwing", async (t) => {
    const lines: { level: number; msg: string; err?: { code?: string; message?: string } }[] = [];
    const logger = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    t.after(() => {
      process.exitCode = undefined;
    });
    const operator = defineOperator({ name: "widgets", kinds: [], setup: () => undefined });
    const kubeconfig = join(tmpdir(), "kubeloop-no-such-kubeconfig");
    await runOperator(operator, { logger, config: { kubeconfig }, leaderElection: false });
    assert.equal(process.exitCode, 1);
    const [line, ...more] = lines;
    assert.equal(more.length, 0);
    assert.equal(line?.level, 50);
    assert.equal(line?.msg, "operator failed to start");
    assert.match(line?.err?.code ?? "", /^KL_/);
    assert.match(line?.err?.message ?? "", /kubeloop-no-such-kubeconfig/);
  });
});
