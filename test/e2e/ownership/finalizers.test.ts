import assert from "node:assert/strict";
import { type TestContext, test } from "node:test";
import pino from "pino";
import { ConfigMap, type KubeObject } from "../../../src/api/index.ts";
import { AlreadyExistsError, type Client, InvalidError, NotFoundError } from "../../../src/client/index.ts";
import { Action, controller } from "../../../src/controller/index.ts";
import {
  FinalizerCleanupError,
  type FinalizerClient,
  FinalizerNameError,
  withFinalizer,
} from "../../../src/ownership/index.ts";
import { installWidgetCrd, Widget, type WidgetObject, widget } from "../fixtures/widgets.ts";
import { eventually, testClient, testNamespace } from "../support.ts";
import {
  conditionOf,
  configMapOrGone,
  eventsAbout,
  FINALIZER,
  releaseWidgetsAfter,
  setCondition,
  startManager,
  widgetOrGone,
} from "./support.ts";

const HOLD = "hold.e2e.kubeloop.dev/test";

/** What the test operator saw and did, for the test to check. */
interface Observed {
  /** Finalizers on the object each `apply` got. */
  applied: string[][];
  /** Per widget: the objects `cleanup` got, in order. */
  cleanups: Map<string, WidgetObject[]>;
  /** Per widget: whether the stored object still had the finalizer when cleanup finished. */
  heldAfterCleanup: Map<string, boolean>;
  /** While true, cleanup throws. */
  failCleanup: boolean;
}

const externalName = (w: WidgetObject) => `${w.metadata.namespace}.${w.metadata.name}`;

/** Creates the "external" resource for `w` in `externalNs`, noting whether the finalizer was stored first. */
async function createExternal(client: Client, externalNs: string, w: WidgetObject): Promise<void> {
  const stored = await client.get(Widget, w.metadata.name as string, { namespace: w.metadata.namespace });
  const guarded = stored.metadata.finalizers?.includes(FINALIZER) ?? false;
  await client
    .create(ConfigMap, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: externalName(w), namespace: externalNs },
      data: { owner: `${w.metadata.namespace}/${w.metadata.name}`, finalizerStoredFirst: String(guarded) },
    })
    .catch((err: unknown) => {
      if (!(err instanceof AlreadyExistsError)) throw err;
    });
}

/** Deletes the "external" resource; idempotent, so it is safe to run twice. */
async function deleteExternal(client: Client, externalNs: string, w: WidgetObject): Promise<void> {
  await client.delete(ConfigMap, externalName(w), { namespace: externalNs }).catch((err: unknown) => {
    if (!(err instanceof NotFoundError)) throw err;
  });
}

/**
 * A Widget controller guarding an "external" ConfigMap (in another namespace, which owner
 * references cannot reach) with a finalizer. A failed cleanup shows as `CleanupBlocked=True`.
 */
async function startFinalizerOperator(
  t: TestContext,
  namespace: string,
  externalNs: string,
): Promise<Observed> {
  const seen: Observed = {
    applied: [],
    cleanups: new Map(),
    heldAfterCleanup: new Map(),
    failCleanup: false,
  };
  // Failing cleanups are expected here; their error logs are noise unless LOG_LEVEL asks for them.
  const logger = pino({ level: process.env.LOG_LEVEL ?? "fatal" });
  await startManager(t, "finalizers-e2e", namespace, { logger }, (m) => {
    controller(m)
      .for(Widget)
      .withOptions({ errorPolicy: () => Action.requeueAfter(300) })
      .reconcile(async (ctx) => {
        const w = ctx.object;
        if (!w) return undefined;
        const name = w.metadata.name as string;
        try {
          return await withFinalizer(
            ctx.client,
            Widget,
            w,
            FINALIZER,
            async (event) => {
              if (event.type === "apply") {
                seen.applied.push([...(event.object.metadata.finalizers ?? [])]);
                await createExternal(ctx.client, externalNs, event.object);
                return undefined;
              }
              seen.cleanups.set(name, [...(seen.cleanups.get(name) ?? []), event.object]);
              if (seen.failCleanup) throw new Error("the external system is unavailable");
              await deleteExternal(ctx.client, externalNs, event.object);
              const after = await ctx.client.get(Widget, name, { namespace });
              seen.heldAfterCleanup.set(name, after.metadata.finalizers?.includes(FINALIZER) ?? false);
              return undefined;
            },
            { recorder: ctx.recorder },
          );
        } catch (err) {
          if (err instanceof FinalizerCleanupError) {
            await setCondition(ctx.client, w, {
              type: "CleanupBlocked",
              status: "True",
              reason: "CleanupFailed",
              message: err.message,
            });
          }
          throw err;
        }
      });
  });
  return seen;
}

async function setup(t: TestContext) {
  await installWidgetCrd();
  const ns = await testNamespace(t);
  const externalNs = await testNamespace(t);
  releaseWidgetsAfter(t, ns);
  const seen = await startFinalizerOperator(t, ns, externalNs);
  return { ns, externalNs, seen, client: await testClient() };
}

test("the finalizer is stored before the external resource exists, and removed only after cleanup deleted it", async (t) => {
  const { ns, externalNs, seen, client } = await setup(t);
  await client.create(Widget, widget(ns, "guarded", "hi"));

  const external = await eventually(() => configMapOrGone(client, externalNs, `${ns}.guarded`), {
    what: "the external resource",
  });
  assert.equal(
    external.data?.finalizerStoredFirst,
    "true",
    "the finalizer was stored before the side effect",
  );
  assert.deepEqual(seen.applied[0], [FINALIZER], "apply sees the finalizer on its object");
  assert.deepEqual((await client.get(Widget, "guarded", { namespace: ns })).metadata.finalizers, [FINALIZER]);
  assert.equal(seen.cleanups.get("guarded"), undefined, "no cleanup before deletion");

  await client.delete(Widget, "guarded", { namespace: ns });
  await eventually(async () => (await widgetOrGone(client, ns, "guarded")) === undefined, {
    what: "the widget gone",
  });
  assert.equal(await configMapOrGone(client, externalNs, `${ns}.guarded`), undefined, "cleaned up");
  const cleanup = seen.cleanups.get("guarded")?.[0];
  assert.ok(cleanup?.metadata.deletionTimestamp, "cleanup ran for an object being deleted");
  assert.equal(
    seen.heldAfterCleanup.get("guarded"),
    true,
    "the finalizer was still there when cleanup finished",
  );
});

test("a failing cleanup keeps the finalizer and the object, shows CleanupFailed and CleanupBlocked, and deletion completes once cleanup succeeds", async (t) => {
  const { ns, externalNs, seen, client } = await setup(t);
  seen.failCleanup = true;
  await client.create(Widget, widget(ns, "stuck", "hi"));
  await eventually(() => configMapOrGone(client, externalNs, `${ns}.stuck`), {
    what: "the external resource",
  });

  await client.delete(Widget, "stuck", { namespace: ns });
  const blocked = await eventually(
    async () => {
      const c = conditionOf(await widgetOrGone(client, ns, "stuck"), "CleanupBlocked");
      return c?.status === "True" && c;
    },
    { what: "CleanupBlocked=True" },
  );
  assert.equal(blocked.reason, "CleanupFailed");
  assert.match(blocked.message, /the external system is unavailable/);
  const [event] = await eventually(
    async () => {
      const found = await eventsAbout(client, ns, "stuck", "CleanupFailed");
      return found.length > 0 && found;
    },
    { what: "a CleanupFailed event" },
  );
  assert.equal(event?.type, "Warning");
  assert.equal(event?.note, `cleanup for ${FINALIZER} failed: the external system is unavailable`);
  await eventually(() => (seen.cleanups.get("stuck")?.length ?? 0) >= 3, { what: "cleanup retried" });

  const held = await client.get(Widget, "stuck", { namespace: ns });
  assert.ok(held.metadata.deletionTimestamp);
  assert.deepEqual(held.metadata.finalizers, [FINALIZER]);
  assert.ok(await configMapOrGone(client, externalNs, `${ns}.stuck`), "the external resource is still there");

  seen.failCleanup = false;
  await eventually(async () => (await widgetOrGone(client, ns, "stuck")) === undefined, {
    what: "the widget gone",
  });
  assert.equal(await configMapOrGone(client, externalNs, `${ns}.stuck`), undefined);
});

test("cleanup may run twice: a second pass on a stale copy is harmless and never removes another finalizer", async (t) => {
  const { ns, externalNs, seen, client } = await setup(t);
  await client.create(Widget, widget(ns, "twice", "hi"));
  await eventually(() => configMapOrGone(client, externalNs, `${ns}.twice`), {
    what: "the external resource",
  });
  await client.patch(Widget, "twice", [{ op: "add", path: "/metadata/finalizers/-", value: HOLD }], {
    type: "json",
    namespace: ns,
  });

  await client.delete(Widget, "twice", { namespace: ns });
  await eventually(
    async () => {
      const w = await client.get(Widget, "twice", { namespace: ns });
      return JSON.stringify(w.metadata.finalizers) === JSON.stringify([HOLD]);
    },
    { what: "our finalizer removed, the other one kept" },
  );
  assert.equal(await configMapOrGone(client, externalNs, `${ns}.twice`), undefined);

  // A retry working from the copy cleanup got (finalizers [ours, hold]), as after a crash.
  const stale = seen.cleanups.get("twice")?.[0];
  assert.deepEqual(stale?.metadata.finalizers, [FINALIZER, HOLD]);
  let reruns = 0;
  await assert.rejects(
    withFinalizer(client, Widget, stale as WidgetObject, FINALIZER, async () => {
      reruns++;
      await deleteExternal(client, externalNs, stale as WidgetObject);
      return undefined;
    }),
    InvalidError,
    "the JSON patch test guard refuses to remove index 0",
  );
  assert.equal(reruns, 1, "cleanup ran a second time, without error");
  const after = await client.get(Widget, "twice", { namespace: ns });
  assert.deepEqual(after.metadata.finalizers, [HOLD], "the other finalizer survived");

  await client.patch(Widget, "twice", [{ op: "remove", path: "/metadata/finalizers/0" }], {
    type: "json",
    namespace: ns,
  });
  await eventually(async () => (await widgetOrGone(client, ns, "twice")) === undefined, {
    what: "the widget gone",
  });
});

test("withFinalizer accepts exactly the finalizer names the apiserver accepts", async (t) => {
  const ns = await testNamespace(t);
  const client = await testClient();
  const cm = await client.create(ConfigMap, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "names", namespace: ns },
  });
  const names = [
    "widgets.example.com/cleanup",
    "foo/x",
    "a-b.c-d.io/Clean_Up.v2",
    `example.com/${"x".repeat(63)}`,
    "cleanup",
    "example.com/",
    "Example.com/cleanup",
    "example.com/a/b",
    "example.com/cleanup-",
    "example..com/cleanup",
    "example.com/clean up",
    `example.com/${"x".repeat(64)}`,
    `${"a".repeat(254)}/cleanup`,
  ];
  const fake: FinalizerClient = { patch: async <T extends KubeObject>() => cm as KubeObject as T };
  for (const name of names) {
    const ours = await withFinalizer(fake, ConfigMap, cm, name, async () => undefined).then(
      () => true,
      (err: unknown) => (err instanceof FinalizerNameError ? false : Promise.reject(err)),
    );
    const server = await client
      .patch(ConfigMap, "names", [{ op: "add", path: "/metadata/finalizers", value: [name] }], {
        type: "json",
        namespace: ns,
        dryRun: true,
      })
      .then(
        () => true,
        (err: unknown) => (err instanceof InvalidError ? false : Promise.reject(err)),
      );
    assert.equal(
      ours,
      server,
      `${name}: kubeloop ${ours ? "accepts" : "rejects"}, the apiserver ${server ? "accepts" : "rejects"}`,
    );
  }
});
