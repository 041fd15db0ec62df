/**
 * Undeclared kinds: a reconcile's client call or cached read of a kind no controller declares and
 * the operator's permissions do not list is warned about once per kind, naming the fix; and a kind
 * the server does not serve shows in `/readyz` and the log as one line per attempt.
 */
import assert from "node:assert/strict";
import { get } from "node:http";
import { describe, it, type TestContext } from "node:test";
import { pino } from "pino";
import { ConfigMap, type KubeObject, resourceType, Secret } from "../../../src/api/index.ts";
import { controller, type ReconcileContext } from "../../../src/controller/index.ts";
import { DeclaredKinds } from "../../../src/manager/declared-kinds.ts";
import type { ManagerOptions } from "../../../src/manager/index.ts";
import { flush } from "../client/support.ts";
import { type SentRequest, type StubAnswer, stubUndici } from "../client/undici-stub.ts";
import { fakeManager } from "./support.ts";

const Widget = resourceType<KubeObject>("example.com/v1", "Widget", "widgets", true);

/** A logger keeping each line it writes, parsed. */
function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: "warn" }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

describe("DeclaredKinds", () => {
  it("warns once per undeclared kind, naming how it was used and the fix", () => {
    const { logger, lines } = capturingLogger();
    const declared = new DeclaredKinds(logger, [Secret]);
    const declaration = controller({ cache: {} as never, addController: () => {} })
      .for(Widget)
      .reconcile(async () => undefined);
    declared.addController(declaration);
    declared.check(Widget, "client.get");
    declared.check(Secret, "client.get");
    declared.check(ConfigMap, "client.create");
    declared.check(ConfigMap, "cache.reader");
    assert.deepEqual(declared.undeclared, ["ConfigMap (v1)"], "what startOperator's stop() fails on");
    assert.equal(lines.length, 1);
    assert.equal(lines[0]?.kind, "ConfigMap");
    assert.equal(lines[0]?.use, "client.create");
    assert.match(
      String(lines[0]?.msg),
      /ConfigMap \(v1\) is used \(client\.create\) but the operator does not declare it.*\.owns\(ConfigMap\).*\.watches\(ConfigMap, map\).*permissions: \[\{ type: ConfigMap.*rerun `kubeloop generate`/,
    );
  });

  it("counts a kind declared in another version as declared, as RBAC does", () => {
    const { logger, lines } = capturingLogger();
    const declared = new DeclaredKinds(logger, [
      resourceType("example.com/v1beta1", "Widget", "widgets", true),
    ]);
    declared.check(Widget, "client.list");
    assert.equal(lines.length, 0);
    assert.equal(declared.has(Widget), true);
  });
});

/** Answers every request: empty lists, watches that end at once, a Secret for any get. */
function emptyCluster(request: SentRequest): StubAnswer {
  if (request.method === "GET" && /\/secrets\/[^/?]+/.test(request.path))
    return { status: 200, body: { apiVersion: "v1", kind: "Secret", metadata: { name: "s" } } };
  if (request.path.includes("watch=1")) return { status: 200, body: "" };
  return { status: 200, body: { metadata: { resourceVersion: "1" }, items: [] } };
}

/** Starts a manager with one Widget controller on a stubbed apiserver answering with `answer`. */
async function startWidgets(
  t: TestContext,
  answer: (request: SentRequest) => StubAnswer,
  options: Partial<ManagerOptions>,
  reconcile: (ctx: ReconcileContext<KubeObject>) => Promise<void> = async () => undefined,
) {
  stubUndici(t, answer);
  const { logger, lines } = capturingLogger();
  const { manager } = await fakeManager({ logger, ...options });
  const counter = { reconciled: 0 };
  controller(manager)
    .for(Widget)
    .reconcile(async (ctx) => {
      await reconcile(ctx);
      counter.reconciled++;
    });
  const stop = new AbortController();
  const running = manager.start(stop.signal);
  t.after(async () => {
    stop.abort();
    await running;
  });
  return { manager, lines, counter };
}

async function runManager(
  t: TestContext,
  options: Partial<ManagerOptions>,
  reconcile: (ctx: ReconcileContext<KubeObject>) => Promise<void>,
) {
  const { manager, lines, counter } = await startWidgets(t, emptyCluster, options, reconcile);
  for (let i = 0; i < 200 && !manager.ready; i++) await flush();
  assert.ok(manager.ready, "the caches synced");
  return {
    lines,
    reconcileTwice: async () => {
      for (const key of ["ns/a", "ns/b"]) {
        const before = counter.reconciled;
        manager.controllers[0]?.enqueue(key, "test");
        for (let i = 0; i < 200 && counter.reconciled === before; i++) await flush();
      }
      assert.equal(counter.reconciled, 2);
    },
  };
}

const undeclaredLines = (lines: Record<string, unknown>[]) =>
  lines.filter((l) => /does not declare it/.test(String(l.msg)));

describe("Manager: undeclared kinds", () => {
  it("warns once about a kind a reconcile reads through the client without declaring it", async (t) => {
    const { lines, reconcileTwice } = await runManager(t, {}, async (ctx) => {
      await ctx.client.get(Secret, "s", { namespace: "ns" });
    });
    await reconcileTwice();
    const warned = undeclaredLines(lines);
    assert.equal(warned.length, 1);
    assert.equal(warned[0]?.use, "client.get");
  });

  it("warns once about an undeclared kind read through ctx.cache.reader", async (t) => {
    const { lines, reconcileTwice } = await runManager(t, {}, async (ctx) => {
      await ctx.cache.reader(Secret);
    });
    await reconcileTwice();
    const warned = undeclaredLines(lines);
    assert.equal(warned.length, 1);
    assert.equal(warned[0]?.use, "cache.reader");
  });

  it("says nothing of a kind the operator's permissions list", async (t) => {
    const { lines, reconcileTwice } = await runManager(
      t,
      { permissions: [{ type: Secret }] },
      async (ctx) => void (await ctx.client.get(Secret, "s", { namespace: "ns" })),
    );
    await reconcileTwice();
    assert.deepEqual(undeclaredLines(lines), []);
  });
});

describe("Manager: a kind the server does not serve", () => {
  function probe(port: number, path: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      get({ host: "127.0.0.1", port, path }, (res) => {
        let body = "";
        res.on("data", (chunk: Buffer) => {
          body += chunk.toString();
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      }).on("error", reject);
    });
  }

  /** An apiserver serving example.com/v2 only: the Widget collection of v1 is `404 page not found`. */
  function servesV2Only(request: SentRequest): StubAnswer {
    const path = request.path.split("?")[0];
    if (path === "/prefix/api") return { status: 200, body: { items: [] } };
    if (path === "/prefix/apis") {
      const versions = [
        {
          version: "v2",
          resources: [{ resource: "widgets", scope: "Namespaced", responseKind: { kind: "Widget" } }],
        },
      ];
      return { status: 200, body: { items: [{ metadata: { name: "example.com" }, versions }] } };
    }
    return { status: 404, body: "404 page not found\n" };
  }

  it("/readyz names the kind, what the server serves and the fix; the log has one line per attempt", async (t) => {
    const { manager, lines } = await startWidgets(t, servesV2Only, {
      health: { host: "127.0.0.1", port: 0 },
    });
    for (let i = 0; i < 200 && manager.cache.health()[0]?.lastError === undefined; i++) await flush();
    const ready = await probe(manager.ports.health ?? 0, "/readyz");
    assert.equal(ready.status, 500);
    assert.match(
      ready.body,
      /not synced: example\.com\/v1\/Widget cluster-wide \(failing: the API server does not serve Widget in example\.com\/v1: the server serves Widget in example\.com\/v2 but not in v1\. .*`kubeloop install`/,
    );
    const failures = lines.filter((l) => l.code === "KL_KIND_NOT_FOUND");
    assert.equal(failures.length, 1, "one line for the first attempt (streaming, then list)");
    assert.equal(failures[0]?.err, undefined, "no stack");
    assert.match(
      String(failures[0]?.msg),
      /^watch of Widget failed; retrying in \d+ ms: the API server does not serve Widget/,
    );
  });
});
