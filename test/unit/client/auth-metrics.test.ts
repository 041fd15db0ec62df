import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type ApiRequest,
  compose,
  type Interceptor,
  type RequestObservation,
} from "../../../src/client/index.ts";
import { observe, refreshOn401, retry } from "../../../src/client/internal/interceptors.ts";
import { FakeClock } from "../../../src/clock/index.ts";
import { FakeCredentials, flush, networkError, response, type Step, scripted, snapshot } from "./support.ts";

const get: ApiRequest = { method: "GET", verb: "get", path: "/api/v1/namespaces/ns/pods" };

describe("refreshOn401", () => {
  it("invalidates the snapshot that was rejected and resends once with the fresh credentials", async () => {
    const credentials = new FakeCredentials(snapshot("old"));
    credentials.rotateTo = snapshot("new");
    const rejected = response(401, { code: 401, reason: "Unauthorized" }, {}, credentials.current);
    const base = scripted([rejected, response(200, "fresh")]);
    const res = await refreshOn401(credentials)(base)(get);
    assert.equal(res.status, 200);
    assert.equal(base.calls.length, 2);
    assert.deepEqual(
      credentials.invalidated.map((s) => s?.headers.authorization),
      ["Bearer old"],
    );
    assert.equal(rejected.body.dumped, true, "the 401 body is drained before resending");
  });

  it("returns the 401 without resending when no new credentials are available", async () => {
    const credentials = new FakeCredentials(snapshot("only"));
    const base = scripted([response(401, "no", {}, credentials.current), response(200)]);
    const res = await refreshOn401(credentials)(base)(get);
    assert.equal(res.status, 401);
    assert.equal(base.calls.length, 1);
    assert.deepEqual(credentials.invalidated, [credentials.current]);
  });

  it("resends only once, even when the resent request is rejected too", async () => {
    const credentials = new FakeCredentials(snapshot("old"));
    credentials.rotateTo = snapshot("new");
    const base = scripted([
      response(401, "", {}, credentials.current),
      () => {
        credentials.rotateTo = snapshot("newer");
        return response(401, "", {}, credentials.current);
      },
      response(200),
    ]);
    const res = await refreshOn401(credentials)(base)(get);
    assert.equal(res.status, 401);
    assert.equal(base.calls.length, 2);
  });

  it("passes other answers through without touching the credentials", async () => {
    const credentials = new FakeCredentials();
    for (const status of [200, 403, 500]) {
      const res = await refreshOn401(credentials)(scripted([response(status, "", {}, credentials.current)]))(
        get,
      );
      assert.equal(res.status, status);
    }
    assert.deepEqual(credentials.invalidated, []);
  });

  it("passes a 401 through when the response does not say which credentials it used", async () => {
    const credentials = new FakeCredentials();
    credentials.rotateTo = snapshot("new");
    const base = scripted([response(401), response(200)]);
    assert.equal((await refreshOn401(credentials)(base)(get)).status, 401);
    assert.equal(base.calls.length, 1);
    assert.deepEqual(credentials.invalidated, []);
  });
});

function recorder() {
  const seen: RequestObservation[] = [];
  return { seen, metrics: { request: (o: RequestObservation) => seen.push(o) } };
}

describe("observe", () => {
  it("records method, verb, status code and seconds until the answer", async () => {
    const clock = new FakeClock();
    const { seen, metrics } = recorder();
    const base = scripted([
      () => {
        clock.advance(250);
        return response(201);
      },
    ]);
    await observe(clock, metrics)(base)({ method: "POST", verb: "create", path: "/api/v1/pods" });
    assert.deepEqual(seen, [{ method: "POST", verb: "create", code: "201", seconds: 0.25 }]);
  });

  it("records `<error>` when no answer arrived, and rethrows", async () => {
    const clock = new FakeClock();
    const { seen, metrics } = recorder();
    const failure = networkError("ECONNRESET");
    await assert.rejects(observe(clock, metrics)(scripted([failure]))(get), (err) => err === failure);
    assert.deepEqual(seen, [{ method: "GET", verb: "get", code: "<error>", seconds: 0 }]);
  });

  it("is called once per attempt when composed inside retry, as the client composes it", async () => {
    const clock = new FakeClock();
    const { seen, metrics } = recorder();
    const steps: Step[] = [response(503), networkError("ECONNRESET"), response(429), response(200)];
    const dispatch = compose(scripted(steps), retry({ clock, server: "https://s" }), observe(clock, metrics));
    const result = dispatch(get);
    for (const ms of [100, 200, 400]) {
      await flush();
      clock.advance(ms);
    }
    assert.equal((await result).status, 200);
    assert.deepEqual(
      seen.map((o) => o.code),
      ["503", "<error>", "429", "200"],
    );
  });
});

describe("compose", () => {
  it("makes the first interceptor the outermost", async () => {
    const order: string[] = [];
    const tag =
      (name: string): Interceptor =>
      (next) =>
      async (request) => {
        order.push(`${name}>`);
        const res = await next(request);
        order.push(`<${name}`);
        return res;
      };
    const dispatch = compose(scripted([response(200)]), tag("a"), tag("b"));
    await dispatch(get);
    assert.deepEqual(order, ["a>", "b>", "<b", "<a"]);
  });
});
