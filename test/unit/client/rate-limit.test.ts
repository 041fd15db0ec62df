import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ApiRequest, ApiResponse } from "../../../src/client/index.ts";
import { rateLimit } from "../../../src/client/internal/interceptors.ts";
import { FakeClock } from "../../../src/clock/index.ts";
import { flush, response } from "./support.ts";

/** A rate-limited dispatch that records when each request got through. */
function limited(clock: FakeClock, qps: number, burst: number) {
  const passed: { path: string; at: number }[] = [];
  const dispatch = rateLimit(
    clock,
    qps,
    burst,
  )(async (request) => {
    passed.push({ path: request.path, at: clock.now() });
    return response(200);
  });
  const send = (path: string, signal?: AbortSignal): Promise<ApiResponse> =>
    dispatch({ method: "GET", verb: "get", path, signal } satisfies ApiRequest);
  return { passed, send };
}

describe("rateLimit", () => {
  it("lets a burst through at once, then spaces requests at qps", async () => {
    const clock = new FakeClock(1_000);
    const { passed, send } = limited(clock, 10, 3);
    const all = Promise.all(["/1", "/2", "/3", "/4", "/5", "/6"].map((p) => send(p)));
    await flush();
    assert.deepEqual(
      passed.map((p) => p.path),
      ["/1", "/2", "/3"],
    );
    for (let i = 0; i < 3; i++) {
      clock.advance(99);
      await flush();
      assert.equal(passed.length, 3 + i, "a token is not ready before 100 ms");
      clock.advance(1);
      await flush();
      assert.equal(passed.length, 4 + i);
    }
    await all;
    assert.deepEqual(
      passed.map((p) => p.at),
      [1_000, 1_000, 1_000, 1_100, 1_200, 1_300],
    );
  });

  it("serves waiting requests in arrival order", async () => {
    const clock = new FakeClock();
    const { passed, send } = limited(clock, 1, 1);
    const all = Promise.all(["/a", "/b", "/c", "/d"].map((p) => send(p)));
    for (let i = 0; i < 4; i++) {
      await flush();
      clock.advance(1_000);
    }
    await all;
    assert.deepEqual(
      passed.map((p) => [p.path, p.at]),
      [
        ["/a", 0],
        ["/b", 1_000],
        ["/c", 2_000],
        ["/d", 3_000],
      ],
    );
  });

  it("refills tokens while idle, up to the burst", async () => {
    const clock = new FakeClock();
    const { passed, send } = limited(clock, 2, 2);
    await Promise.all([send("/1"), send("/2")]);
    clock.advance(60_000);
    const burst = Promise.all([send("/3"), send("/4"), send("/5")]);
    await flush();
    assert.equal(passed.length, 4, "only `burst` tokens accumulate, however long the pause");
    clock.advance(500);
    await burst;
    assert.equal(passed.at(-1)?.at, 60_500);
  });

  it("rejects a waiting request whose signal aborts, and keeps serving the others", async () => {
    const clock = new FakeClock();
    const { passed, send } = limited(clock, 1, 1);
    await send("/first");
    const stop = new AbortController();
    const aborted = send("/aborted", stop.signal);
    const later = send("/later");
    await flush();
    stop.abort(new Error("caller gave up"));
    await assert.rejects(aborted, /caller gave up/);
    clock.advance(10_000);
    await later;
    assert.deepEqual(
      passed.map((p) => p.path),
      ["/first", "/later"],
    );
  });

  it("spends no token on a request aborted while waiting: the next one takes it", async () => {
    const clock = new FakeClock();
    const { passed, send } = limited(clock, 1, 1);
    await send("/first");
    const stop = new AbortController();
    const aborted = send("/aborted", stop.signal);
    const later = send("/later");
    await flush();
    clock.advance(400);
    stop.abort(new Error("caller gave up"));
    await assert.rejects(aborted, /caller gave up/);
    clock.advance(600);
    await later;
    assert.deepEqual(
      passed.map((p) => [p.path, p.at]),
      [
        ["/first", 0],
        ["/later", 1_000],
      ],
    );
  });

  it("spends no token on a request aborted before it is sent", async () => {
    const clock = new FakeClock();
    const { passed, send } = limited(clock, 1, 1);
    await assert.rejects(send("/aborted", AbortSignal.abort(new Error("too late"))), /too late/);
    await send("/next");
    assert.deepEqual(passed, [{ path: "/next", at: 0 }], "the burst token was still there");
    assert.equal(clock.pending, 0);
  });

  it("is disabled by an infinite qps", async () => {
    const clock = new FakeClock();
    const { passed, send } = limited(clock, Number.POSITIVE_INFINITY, 1);
    await Promise.all(Array.from({ length: 100 }, (_, i) => send(`/${i}`)));
    assert.equal(passed.length, 100);
    assert.ok(passed.every((p) => p.at === 0));
    assert.equal(clock.pending, 0);
  });
});
