/** bench/webhooks.ts's pieces that are not timing: the requests, the check of answers, the figures. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isPort, portCheck } from "../../../bench/webhooks/check.ts";
import type { LoadResult } from "../../../bench/webhooks/load.ts";
import { markdown, mediansOf, type Round, ratioOf, roundOf } from "../../../bench/webhooks/report.ts";
import { bodyOf, reviewTemplates, wrongAnswer } from "../../../bench/webhooks/reviews.ts";
import { send, startServer } from "../webhook/support.ts";

describe("webhook bench requests", () => {
  it("are AdmissionReviews carrying the uid, CREATE and UPDATE in turn, one in four denied", () => {
    const templates = reviewTemplates(8);
    const reviews = templates.map((t, i) => JSON.parse(bodyOf(t, `uid-${i}`)));
    assert.deepEqual(
      reviews.map((r) => [r.request.uid, r.request.operation, r.request.oldObject === null]),
      templates.map((_, i) => [`uid-${i}`, i % 2 ? "UPDATE" : "CREATE", i % 2 === 0]),
    );
    assert.deepEqual(
      templates.map((t) => t.allowed),
      [true, true, true, false, true, true, true, false],
    );
  });

  it("are answered as expected by kubeloop's server, answers the check accepts", async (t) => {
    const { port } = await startServer(t, [portCheck]);
    const templates = reviewTemplates(16);
    for (const [i, template] of templates.entries()) {
      const answer = await send(port, portCheck.path, bodyOf(template, `u${i}`));
      assert.equal(
        wrongAnswer(answer.status, JSON.stringify(answer.body), `u${i}`, template.allowed),
        undefined,
      );
    }
  });
});

describe("the webhook bench's check", () => {
  it("takes plain port numbers only", () => {
    assert.deepEqual(["1", "8080", "65535", "0", "65536", "08080", "+80", "80a", ""].map(isPort), [
      true,
      true,
      true,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe("wrongAnswer", () => {
  const review = (response: object) => JSON.stringify({ kind: "AdmissionReview", response });
  const denial = { code: 422, details: { causes: [{ field: "data.port" }] } };

  it("accepts a right admission and a right denial", () => {
    assert.equal(wrongAnswer(200, review({ uid: "a", allowed: true }), "a", true), undefined);
    assert.equal(
      wrongAnswer(200, review({ uid: "a", allowed: false, status: denial }), "a", false),
      undefined,
    );
  });

  it("names what is wrong", () => {
    const wrong = (status: number, text: string, allowed = true) => wrongAnswer(status, text, "a", allowed);
    assert.match(wrong(500, "boom") ?? "", /^HTTP 500/);
    assert.match(wrong(200, "{") ?? "", /^not JSON/);
    assert.match(wrong(200, review({ uid: "b", allowed: true })) ?? "", /uid b answered for a/);
    assert.match(
      wrong(200, review({ uid: "a", allowed: true }), false) ?? "",
      /allowed true, expected false/,
    );
    assert.match(wrong(200, review({ uid: "a", allowed: false, status: { code: 403 } }), false) ?? "", /422/);
  });
});

describe("webhook bench figures", () => {
  const load = (latenciesMs: number[], wrong = 0): LoadResult => ({
    latenciesMs,
    windowMs: 2000,
    serverCpuSeconds: 1,
    generatorCpuSeconds: 1.5,
    sent: latenciesMs.length + 10,
    wrong,
    wrongExamples: [],
  });

  it("come from the window's latencies and the server's CPU in it", () => {
    const r = roundOf("kubeloop", 1, load([4, 1, 3, 2]), 50);
    assert.deepEqual(
      [r.requests, r.requestsPerSecond, r.p50Ms, r.p99Ms, r.cpuUsPerRequest, r.cores, r.generatorCores],
      [4, 2, 2, 4, 250_000, 0.5, 0.75],
    );
  });

  it("are medians of the rounds that answered everything right, and their ratio", () => {
    const rounds: Round[] = [
      roundOf("kubeloop", 1, load([10, 10]), 100),
      roundOf("kubeloop", 2, load([1, 1, 1, 1, 1, 1, 1, 1]), 300),
      roundOf("kubeloop", 3, load([5, 5, 5, 5]), 200),
      roundOf("controller-runtime", 1, load([1, 1, 1, 1], 1), 10),
      roundOf("controller-runtime", 2, load([2, 2, 2, 2]), 20),
    ];
    const k = mediansOf(rounds, "kubeloop");
    const c = mediansOf(rounds, "controller-runtime");
    assert.deepEqual([k.rounds, k.requestsPerSecond, k.p50Ms, k.peakRssMiB], [3, 2, 5, 200]);
    assert.deepEqual([c.rounds, c.requestsPerSecond, c.p50Ms], [1, 2, 2]);
    assert.deepEqual([ratioOf(k, c).p50Ms, ratioOf(k, c).peakRssMiB], [2.5, 10]);
    assert.ok(Number.isNaN(mediansOf(rounds.slice(0, 3), "controller-runtime").p99Ms));
  });
});

describe("the webhook bench report", () => {
  it("has as many cells in every row of a table as in its header", () => {
    const result: LoadResult = {
      latenciesMs: [1, 2],
      windowMs: 1000,
      serverCpuSeconds: 0.5,
      generatorCpuSeconds: 0.5,
      sent: 2,
      wrong: 0,
      wrongExamples: [],
    };
    const rounds = [roundOf("kubeloop", 1, result, 50), roundOf("controller-runtime", 1, result, 20)];
    const versions = { kubeloop: "k", "controller-runtime": "c" };
    const text = markdown(rounds, { date: "d", command: "c", settings: "s", machine: ["m"], versions });
    const tables = text.split("\n\n").filter((block) => block.startsWith("|"));
    assert.equal(tables.length, 2);
    for (const rows of tables.map((t) =>
      t
        .trim()
        .split("\n")
        .map((row) => row.split(" | ").length),
    )) {
      assert.deepEqual(
        rows,
        rows.map(() => rows[0]),
      );
    }
  });
});
