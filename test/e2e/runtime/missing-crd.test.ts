/**
 * A controller of a kind whose CRD is not installed: the manager is not ready, `/readyz` names the
 * kind, what the server serves of its group and the fix, and the log has one line per attempt;
 * once the CRD is installed, the informer picks it up on its next attempt and the manager syncs.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { pino } from "pino";
import { z } from "zod";
import { controller } from "../../../src/controller/index.ts";
import { Manager } from "../../../src/manager/index.ts";
import { installCrds } from "../../../src/operator/index.ts";
import { defineKind } from "../../../src/schema/index.ts";
import { eventually, kubectl, onCleanup, testClient } from "../support.ts";

/** A kind of a group of its own: no other test installs its CRD. */
const Gizmo = defineKind({
  group: `missing-${randomBytes(3).toString("hex")}.e2e.kubeloop.dev`,
  version: "v1",
  kind: "Gizmo",
  scope: "Namespaced",
  spec: z.object({ size: z.number().int() }),
});

async function readyz(port: number | undefined): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://127.0.0.1:${port}/readyz`);
  return { status: res.status, body: await res.text() };
}

test("a missing CRD shows in /readyz and the log with its fix, and is picked up once installed", async (t) => {
  const lines: { code?: string; msg: string; err?: unknown }[] = [];
  const logger = pino({ level: "warn" }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const manager = await Manager.create({
    name: "gizmos-e2e",
    logger,
    metrics: false,
    health: { host: "127.0.0.1", port: 0 },
    // Retries at most every 2 s, so the CRD installed below is found quickly.
    cache: { informer: { watch: { backoff: { initialMs: 200, maxMs: 2_000 } } } },
  });
  controller(manager)
    .for(Gizmo)
    .reconcile(async () => undefined);
  const stop = new AbortController();
  const running = manager.start(stop.signal);
  onCleanup(t, async () => {
    stop.abort();
    await running;
    await kubectl(["delete", "crd", `gizmos.${Gizmo.group}`, "--wait=false"], { allowFail: true });
  });

  const notReady = await eventually(
    async () => {
      const probe = await readyz(manager.ports.health);
      return probe.status === 500 && /does not serve/.test(probe.body) && probe;
    },
    { what: "/readyz to name the missing kind" },
  );
  assert.match(
    notReady.body,
    new RegExp(
      `not synced: ${Gizmo.group.replaceAll(".", "\\.")}/v1/Gizmo cluster-wide \\(failing: the API server does not serve ` +
        `Gizmo in ${Gizmo.group.replaceAll(".", "\\.")}/v1: the server serves no version of the group`,
    ),
  );
  assert.match(
    notReady.body,
    /install its CRD \(`kubeloop install`, or `kubectl apply --server-side -f config\/crds\.yaml`/,
  );
  const logged = await eventually(() => lines.find((line) => line.code === "KL_KIND_NOT_FOUND"), {
    what: "the log line",
  });
  assert.match(logged.msg, /^watch of Gizmo failed; retrying in \d+ ms: the API server does not serve Gizmo/);
  assert.equal(logged.err, undefined, "one line, without a stack");
  assert.equal(manager.ready, false);

  await installCrds(await testClient(), [Gizmo]);
  await eventually(() => manager.ready, {
    what: "the manager to sync once the CRD is installed",
    timeoutMs: 30_000,
  });
  assert.equal((await readyz(manager.ports.health)).status, 200);
});
