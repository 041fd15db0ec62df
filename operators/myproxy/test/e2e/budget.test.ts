/**
 * A configuration too large for one ConfigMap: routes as large as the schema allows, more than
 * {@link CONFIG_BUDGET_BYTES} holds. The ConfigMap write succeeds with the oldest routes, the others
 * report `ConfigurationFull`, the MyProxy counts them, and no route ever claims `Accepted=True`
 * while its MyProxy's ConfigMap does not list it.
 */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { MyProxy, ProxyRoute, type ProxyRouteObject } from "../../api.ts";
import { CONFIG_BUDGET_BYTES } from "../../nginx.ts";
import { olderFirst } from "../../routes.ts";
import { largeRouteSpec } from "../unit/fixtures.ts";
import {
  conditionOf,
  configOf,
  createProxy,
  createRoute,
  createService,
  eventually,
  getOrGone,
  installCrds,
  routesIn,
  startOperator,
  testClient,
  testNamespace,
  waitForCondition,
} from "./support.ts";

before(installCrds);

/** About 3.5 KiB of configuration each: 300 of them exceed the 900 KiB budget by about a sixth. */
const ROUTES = 300;

test("routes beyond the configuration budget get ConfigurationFull; the ConfigMap holds the oldest", async (t) => {
  const ns = await testNamespace(t);
  await startOperator(t, ns);
  await createService(ns, "web", [{ port: 80 }]);
  await createProxy(ns, "edge", { replicas: 1 });
  const started = performance.now();
  await createLargeRoutes(ns, ROUTES);

  const violations: string[] = [];
  const settled = await eventually(
    async () => {
      const state = await observe(ns);
      violations.push(...state.claimedButAbsent.map((name) => `${name} Accepted=True, not in the ConfigMap`));
      return state.settled && state;
    },
    { what: "every route admitted or ConfigurationFull, as the ConfigMap says", timeoutMs: 120_000 },
  );
  t.diagnostic(
    `${ROUTES} routes settled in ${Math.round(performance.now() - started)} ms: ${settled.listed.length} ` +
      `in a ${settled.configBytes}-byte configuration, ${settled.full.length} ConfigurationFull`,
  );
  assert.deepEqual(violations, [], "no route claimed Accepted=True while absent from the ConfigMap");
  assert.ok(settled.configBytes <= CONFIG_BUDGET_BYTES, `${settled.configBytes} bytes`);
  assert.ok(settled.full.length > 0 && settled.listed.length > 0);
  assert.deepEqual(settled.oldestFirst.slice(0, settled.listed.length).sort(), [...settled.listed].sort());

  const full = await waitForCondition(MyProxy, ns, "edge", {
    type: "RoutesAdmitted",
    status: "False",
    reason: "ConfigurationFull",
  });
  t.diagnostic(`MyProxy: ${conditionOf(full, "RoutesAdmitted")?.message}`);
  await eventually(
    async () => {
      const proxy = await getOrGone(MyProxy, ns, "edge");
      const counted = conditionOf(proxy, "RoutesAdmitted")?.message.startsWith(
        `${settled.full.length} routes `,
      );
      return counted && proxy?.status?.acceptedRoutes === settled.listed.length;
    },
    { what: `the MyProxy counting ${settled.full.length} routes left out and ${settled.listed.length} in` },
  );
  await waitForCondition(MyProxy, ns, "edge", { type: "Ready", status: "True" }, 60_000);
});

/** Creates `count` routes of MyProxy `edge` as large as the schema allows, ten at a time. */
async function createLargeRoutes(namespace: string, count: number): Promise<void> {
  for (let first = 0; first < count; first += 10) {
    const batch = Array.from({ length: Math.min(10, count - first) }, (_, k) => largeRouteSpec(first + k));
    await Promise.all(
      batch.map(({ name, host, path }) =>
        createRoute(namespace, name, { proxy: "edge", host, path, service: "web", port: 80 }),
      ),
    );
  }
}

/** What the routes say against what the ConfigMap lists, read in that order. */
async function observe(namespace: string) {
  const { items } = await (await testClient()).list(ProxyRoute, { namespace });
  const config = await configOf(namespace, "edge");
  const listed = routesIn(config);
  const inConfig = new Set(listed);
  const reasonOf = (r: ProxyRouteObject) => {
    const accepted = conditionOf(r, "Accepted");
    return accepted?.observedGeneration === r.metadata.generation ? accepted?.reason : undefined;
  };
  const names = (reason: string) => items.filter((r) => reasonOf(r) === reason).map(nameOf);
  const accepted = names("Accepted");
  const full = names("ConfigurationFull");
  return {
    // A route listed once stays listed here (routes are only added), so reading the routes first
    // makes any Accepted=True route missing from the ConfigMap a real violation.
    claimedButAbsent: accepted.filter((name) => !inConfig.has(name)),
    settled:
      items.length === ROUTES &&
      accepted.length + full.length === ROUTES &&
      full.length > 0 &&
      accepted.length === listed.length,
    listed,
    full,
    configBytes: config?.length ?? 0,
    oldestFirst: [...items].sort(olderFirst).map(nameOf),
  };
}

function nameOf(route: ProxyRouteObject): string {
  return route.metadata.name ?? "";
}
