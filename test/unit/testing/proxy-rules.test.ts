import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { hasCode } from "../../../src/errors/index.ts";
import { listAsOf } from "../../../src/testing/proxy/exchange.ts";
import { matchesRequest } from "../../../src/testing/proxy/match.ts";
import { describeRequest } from "../../../src/testing/proxy/request-info.ts";
import { Decisions, RuleSet } from "../../../src/testing/proxy/rules.ts";

const watchCm = describeRequest("GET", "/api/v1/namespaces/demo/configmaps?watch=1");
const getCm = describeRequest("GET", "/api/v1/namespaces/demo/configmaps/a");
const patchPodStatus = describeRequest("PATCH", "/api/v1/namespaces/demo/pods/p/status");

describe("proxy: matching requests", () => {
  it("needs every given filter to match; an empty match takes everything", () => {
    assert.equal(matchesRequest({}, getCm), true);
    assert.equal(
      matchesRequest({ verb: "get", resource: "configmaps", namespace: "demo", name: "a" }, getCm),
      true,
    );
    assert.equal(matchesRequest({ verb: "get", namespace: "other" }, getCm), false);
    assert.equal(matchesRequest({ verb: ["list", "watch"] }, watchCm), true);
    assert.equal(matchesRequest({ verb: "watch" }, getCm), false);
  });

  it("compares methods without regard to case", () => {
    assert.equal(matchesRequest({ method: "patch" }, patchPodStatus), true);
    assert.equal(matchesRequest({ method: ["PUT", "POST"] }, patchPodStatus), false);
  });

  it("matches a resource plural, or a plural with its subresource", () => {
    assert.equal(matchesRequest({ resource: "pods" }, patchPodStatus), true);
    assert.equal(matchesRequest({ resource: "pods/status" }, patchPodStatus), true);
    assert.equal(matchesRequest({ resource: "pods/log" }, patchPodStatus), false);
    assert.equal(matchesRequest({ resource: ["secrets", "configmaps"] }, getCm), true);
  });

  it("takes a path prefix or a pattern, never the query string", () => {
    assert.equal(matchesRequest({ path: "/api/v1/namespaces/demo" }, getCm), true);
    assert.equal(matchesRequest({ path: "/apis/" }, getCm), false);
    assert.equal(matchesRequest({ path: /watch=1/ }, watchCm), false);
    const global = /configmaps\/a$/g;
    assert.equal(matchesRequest({ path: global }, getCm), true);
    assert.equal(matchesRequest({ path: global }, getCm), true, "a global pattern matches again");
  });
});

describe("proxy: rules", () => {
  it("applies a rule with times only to the first N requests, once per request however often asked", () => {
    const rules = new RuleSet(1);
    const rule = rules.add({ verb: "get", times: 2 }, { status: 500 });
    const first = new Decisions(getCm);
    assert.equal(first.applies(rule), true);
    assert.equal(first.applies(rule), true);
    assert.equal(new Decisions(getCm).applies(rule), true);
    assert.equal(new Decisions(getCm).applies(rule), false);
    assert.equal(rule.hits, 2);
  });

  it("draws probability from the seed: the same seed gives the same choices", () => {
    const choices = (seed: number) => {
      const rule = new RuleSet(seed).add({ probability: 0.3 }, { status: 500 });
      return Array.from({ length: 200 }, () => new Decisions(getCm).applies(rule));
    };
    assert.deepEqual(choices(7), choices(7));
    assert.notDeepEqual(choices(7), choices(8));
    const hits = choices(7).filter(Boolean).length;
    assert.ok(hits > 30 && hits < 90, `about 30% of 200, got ${hits}`);
  });

  it("stops applying once removed, and releases whoever waits on it", async () => {
    const rules = new RuleSet(1);
    const rule = rules.add({}, { blackhole: true });
    const decisions = new Decisions(getCm);
    assert.deepEqual(decisions.requestRules(rules), [rule]);
    rule.remove();
    await rule.removed;
    assert.equal(rule.active, false);
    assert.equal(decisions.applies(rule), false);
    assert.deepEqual(rules.list(), []);
  });

  it("separates request faults from stream faults", () => {
    const rules = new RuleSet(1);
    const slow = rules.add({}, { latencyMs: 10 });
    const drop = rules.add({}, { dropEvents: "all" });
    const decisions = new Decisions(watchCm);
    assert.deepEqual(decisions.requestRules(rules), [slow]);
    assert.deepEqual(decisions.streamRules(rules), [drop]);
  });

  it("clear() removes every rule and tells listeners about new ones", () => {
    const rules = new RuleSet(1);
    const seen: unknown[] = [];
    rules.onAdded((r) => seen.push(r));
    const a = rules.add({}, { status: 500 });
    const b = rules.add({}, { silence: true });
    assert.deepEqual(seen, [a, b]);
    rules.clear();
    assert.deepEqual(rules.list(), []);
    assert.equal(a.active || b.active, false);
  });

  it("rejects rules that cannot be applied, with KL_PROXY_RULE", () => {
    const rules = new RuleSet(1);
    const invalid = [
      () => rules.add({}, {}),
      () => rules.add({}, { status: 429, blackhole: true }),
      () => rules.add({}, { status: 99 }),
      () => rules.add({}, { retryAfterSeconds: 1, latencyMs: 5 }),
      () => rules.add({}, { latencyMs: -1 }),
      () => rules.add({}, { dropEvents: { every: 0 } }),
      () => rules.add({ times: 0 }, { status: 500 }),
      () => rules.add({ probability: 2 }, { status: 500 }),
      () => rules.add({}, { listAsOf: "0" }),
      () => rules.add({}, { listAsOf: "latest" }),
    ];
    for (const add of invalid) assert.throws(add, (err) => hasCode(err, "KL_PROXY_RULE"));
    assert.deepEqual(rules.list(), []);
    assert.doesNotThrow(() => rules.add({}, { dropEvents: ["ADDED", "DELETED"] }));
  });
});

describe("proxy: lists answered as of an older resourceVersion (listAsOf)", () => {
  it("is a request fault", () => {
    const rules = new RuleSet(1);
    const stale = rules.add({ verb: "list" }, { listAsOf: "42" });
    const list = describeRequest("GET", "/api/v1/configmaps?limit=500");
    assert.deepEqual(new Decisions(list).requestRules(rules), [stale]);
  });

  it("asks the first page for exactly that version, replacing what the client asked", () => {
    assert.equal(
      listAsOf("/api/v1/configmaps?limit=500&resourceVersion=0&resourceVersionMatch=NotOlderThan", "42"),
      "/api/v1/configmaps?limit=500&resourceVersion=42&resourceVersionMatch=Exact",
    );
    assert.equal(
      listAsOf("/apis/x.dev/v1/namespaces/a/parcels", "7"),
      "/apis/x.dev/v1/namespaces/a/parcels?resourceVersion=7&resourceVersionMatch=Exact",
    );
  });

  it("leaves later pages as they are: their continue token carries the version", () => {
    const next = "/api/v1/configmaps?limit=500&continue=abc";
    assert.equal(listAsOf(next, "42"), next);
  });
});
