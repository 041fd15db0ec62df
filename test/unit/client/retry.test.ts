import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type ApiRequest, UnreachableError, type Verb } from "../../../src/client/index.ts";
import { isNetworkError, retry } from "../../../src/client/internal/interceptors.ts";
import { FakeClock } from "../../../src/clock/index.ts";
import { flush, networkError, response, type Step, scripted } from "./support.ts";

const server = "https://apiserver.test:6443";
const methods: Record<Verb, ApiRequest["method"]> = {
  get: "GET",
  list: "GET",
  watch: "GET",
  create: "POST",
  update: "PUT",
  patch: "PATCH",
  delete: "DELETE",
  deletecollection: "DELETE",
};
const writes: Verb[] = ["create", "update", "patch", "delete", "deletecollection"];

function retrying(steps: Step[], options: { maxThrottled?: number; maxReads?: number } = {}) {
  const clock = new FakeClock();
  const base = scripted(steps);
  const dispatch = retry({ clock, server, ...options })(base);
  const send = (verb: Verb, signal?: AbortSignal) =>
    dispatch({ method: methods[verb], verb, path: "/api/v1/namespaces/ns/configmaps", signal });
  return { clock, calls: base.calls, send };
}

/** Advances the clock in `steps` of ms, flushing after each, and returns the attempts seen after each step. */
async function attemptsAfter(clock: FakeClock, calls: unknown[], delays: number[]): Promise<number[]> {
  const seen: number[] = [];
  for (const ms of delays) {
    clock.advance(ms);
    await flush();
    seen.push(calls.length);
  }
  return seen;
}

describe("retry: 429 Too Many Requests", () => {
  for (const verb of Object.keys(methods) as Verb[]) {
    it(`retries a throttled ${verb} after the Retry-After delay`, async () => {
      const throttled = response(429, { kind: "Status", code: 429 }, { "retry-after": "2" });
      const { clock, calls, send } = retrying([throttled, response(200, "ok")]);
      const result = send(verb);
      await flush();
      assert.equal(calls.length, 1);
      assert.equal(throttled.body.dumped, true, "the rejected body is drained");
      assert.deepEqual(await attemptsAfter(clock, calls, [1_999, 1]), [1, 2]);
      assert.equal((await result).status, 200);
    });
  }

  it("gives up after 10 attempts and returns the last 429", async () => {
    const { clock, calls, send } = retrying([response(429, "", { "retry-after": "1" })]);
    const result = send("create");
    await flush();
    const seen = await attemptsAfter(clock, calls, Array(9).fill(1_000));
    assert.deepEqual(seen, [2, 3, 4, 5, 6, 7, 8, 9, 10]);
    assert.equal((await result).status, 429);
    clock.advance(60_000);
    await flush();
    assert.equal(calls.length, 10);
  });

  it("backs off exponentially from 100 ms to 2 s without Retry-After", async () => {
    const { clock, calls, send } = retrying([response(429)]);
    const result = send("get");
    await flush();
    const expected = [100, 200, 400, 800, 1_600, 2_000, 2_000, 2_000, 2_000];
    for (const [i, delay] of expected.entries()) {
      clock.advance(delay - 1);
      await flush();
      assert.equal(calls.length, i + 1, `attempt ${i + 2} waits ${delay} ms`);
      clock.advance(1);
      await flush();
      assert.equal(calls.length, i + 2);
    }
    assert.equal((await result).status, 429);
  });

  it("caps Retry-After at 60 s and accepts 0", async () => {
    const capped = retrying([response(429, "", { "retry-after": "3600" }), response(200)]);
    const first = capped.send("list");
    await flush();
    assert.deepEqual(await attemptsAfter(capped.clock, capped.calls, [59_999, 1]), [1, 2]);
    assert.equal((await first).status, 200);

    const zero = retrying([response(429, "", { "retry-after": "0" }), response(200)]);
    const second = zero.send("patch");
    await flush();
    assert.deepEqual(await attemptsAfter(zero.clock, zero.calls, [0]), [2]);
    assert.equal((await second).status, 200);
  });

  it("honours maxThrottled", async () => {
    const { clock, calls, send } = retrying([response(429, "", { "retry-after": "1" })], {
      maxThrottled: 2,
    });
    const result = send("get");
    await flush();
    clock.advance(1_000);
    assert.equal((await result).status, 429);
    assert.equal(calls.length, 2);
  });
});

describe("retry: reads", () => {
  for (const status of [500, 502, 503, 504]) {
    it(`retries a get answered ${status}`, async () => {
      const { clock, calls, send } = retrying([response(status), response(200)]);
      const result = send("get");
      await flush();
      assert.deepEqual(await attemptsAfter(clock, calls, [99, 1]), [1, 2]);
      assert.equal((await result).status, 200);
    });
  }

  it("honours Retry-After on a 503", async () => {
    const { clock, calls, send } = retrying([response(503, "", { "retry-after": "5" }), response(200)]);
    const result = send("list");
    await flush();
    assert.deepEqual(await attemptsAfter(clock, calls, [4_999, 1]), [1, 2]);
    assert.equal((await result).status, 200);
  });

  it("returns the last 5xx after 4 attempts", async () => {
    const { clock, calls, send } = retrying([response(503)]);
    const result = send("list");
    await flush();
    assert.deepEqual(await attemptsAfter(clock, calls, [100, 200, 400]), [2, 3, 4]);
    assert.equal((await result).status, 503);
    assert.equal(calls.length, 4);
  });

  it("does not retry other 5xx codes or client errors", async () => {
    for (const status of [501, 505, 400, 404, 409]) {
      const { calls, send } = retrying([response(status), response(200)]);
      assert.equal((await send("get")).status, status);
      assert.equal(calls.length, 1, `${status} is not retried`);
    }
  });

  for (const code of ["ECONNRESET", "ECONNREFUSED", "EPIPE", "ETIMEDOUT", "UND_ERR_SOCKET"]) {
    it(`retries a list after ${code}`, async () => {
      const { clock, calls, send } = retrying([networkError(code), response(200)]);
      const result = send("list");
      await flush();
      assert.deepEqual(await attemptsAfter(clock, calls, [99, 1]), [1, 2]);
      assert.equal((await result).status, 200);
    });
  }

  it("turns network errors that outlast the retries into UnreachableError", async () => {
    const last = networkError("ECONNRESET");
    const { clock, calls, send } = retrying([networkError("ECONNRESET"), last]);
    const result = send("get");
    const rejected = assert.rejects(result, (err: unknown) => {
      assert.ok(err instanceof UnreachableError);
      assert.equal(err.cause, last);
      assert.match(err.message, /apiserver\.test:6443 \(ECONNRESET\)/);
      return true;
    });
    await flush();
    await attemptsAfter(clock, calls, [100, 200, 400]);
    await rejected;
    assert.equal(calls.length, 4);
  });

  it("does not retry a watch after a network error", async () => {
    const { calls, send } = retrying([networkError("ECONNRESET"), response(200)]);
    await assert.rejects(send("watch"), UnreachableError);
    assert.equal(calls.length, 1);
  });

  it("rethrows errors that are not network errors without retrying", async () => {
    const bug = new TypeError("not a network problem");
    const { calls, send } = retrying([bug, response(200)]);
    await assert.rejects(send("get"), (err) => err === bug);
    assert.equal(calls.length, 1);
  });

  it("stops retrying when the signal aborts during the wait", async () => {
    const { calls, send } = retrying([response(503), response(200)]);
    const stop = new AbortController();
    const result = send("get", stop.signal);
    await flush();
    stop.abort(new Error("stopped"));
    await assert.rejects(result, /stopped/);
    assert.equal(calls.length, 1);
  });

  it("does not retry a network error once the signal has aborted", async () => {
    const stop = new AbortController();
    const { calls, send } = retrying([
      () => {
        stop.abort();
        throw networkError("ECONNRESET");
      },
      response(200),
    ]);
    await assert.rejects(send("get", stop.signal), UnreachableError);
    assert.equal(calls.length, 1);
  });
});

describe("retry: writes", () => {
  for (const verb of writes) {
    it(`does not retry a ${verb} answered 503`, async () => {
      const { calls, send } = retrying([response(503), response(200)]);
      assert.equal((await send(verb)).status, 503);
      assert.equal(calls.length, 1);
    });

    it(`does not resend a ${verb} after ECONNRESET (it may have been applied)`, async () => {
      const { calls, send } = retrying([networkError("ECONNRESET"), response(200)]);
      await assert.rejects(send(verb), UnreachableError);
      assert.equal(calls.length, 1);
    });

    it(`resends a ${verb} whose connection was refused`, async () => {
      const { clock, calls, send } = retrying([networkError("ECONNREFUSED"), response(201)]);
      const result = send(verb);
      await flush();
      assert.deepEqual(await attemptsAfter(clock, calls, [99, 1]), [1, 2]);
      assert.equal((await result).status, 201);
    });
  }

  it("resends a write after a connect timeout", async () => {
    const { clock, calls, send } = retrying([networkError("UND_ERR_CONNECT_TIMEOUT"), response(201)]);
    const result = send("create");
    await flush();
    clock.advance(100);
    assert.equal((await result).status, 201);
    assert.equal(calls.length, 2);
  });

  it("gives up on a refused write after 4 attempts with UnreachableError", async () => {
    const { clock, calls, send } = retrying([networkError("ECONNREFUSED")]);
    const rejected = assert.rejects(send("create"), UnreachableError);
    await flush();
    await attemptsAfter(clock, calls, [100, 200, 400]);
    await rejected;
    assert.equal(calls.length, 4);
  });
});

describe("retry: metrics", () => {
  it("counts each retry by the code it repeats and the HTTP method, as client-go's rest_client_request_retries_total", async () => {
    const retries: string[] = [];
    const clock = new FakeClock();
    const base = scripted([
      response(429, "", { "retry-after": "1" }),
      networkError("ECONNRESET"),
      response(200),
    ]);
    const dispatch = retry({
      clock,
      server,
      metrics: { retry: (o) => retries.push(`${o.method} ${o.code}`) },
    })(base);
    const result = dispatch({ method: "GET", verb: "get", path: "/api/v1/namespaces/ns/configmaps/a" });
    await flush();
    await attemptsAfter(clock, base.calls, [1_000, 200]);
    assert.equal((await result).status, 200);
    assert.deepEqual(retries, ["GET 429", "GET <error>"]);
  });

  it("counts nothing for a request answered at once or not retried", async () => {
    const retries: string[] = [];
    const dispatch = retry({
      clock: new FakeClock(),
      server,
      metrics: { retry: (o) => retries.push(o.code) },
    })(scripted([response(500)]));
    assert.equal(
      (await dispatch({ method: "POST", verb: "create", path: "/api/v1/namespaces/ns/configmaps" })).status,
      500,
    );
    assert.deepEqual(retries, [], "a write answered 500 is not repeated");
  });
});

describe("isNetworkError", () => {
  it("recognises socket and undici error codes only", () => {
    for (const code of ["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_CLOSED"]) {
      assert.equal(isNetworkError(networkError(code)), true, code);
    }
    assert.equal(isNetworkError(networkError("ENOENT")), false);
    assert.equal(isNetworkError(new Error("plain")), false);
    assert.equal(isNetworkError(undefined), false);
  });
});
