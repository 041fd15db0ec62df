/**
 * What the demo does once the samples are applied, and what it expects: the load test completes
 * with its one failed worker flagged, the proxy serves the two valid routes and reports the
 * invalid one, and the generated ConfigMap is put back after it is tampered with and deleted —
 * with an event naming who changed it.
 */
import { type Client, ConfigMap } from "kubeloop";
import { LoadTest } from "../operators/loadtest/api.ts";
import { MyProxy, ProxyRoute } from "../operators/myproxy/api.ts";
import { configMapName } from "../operators/myproxy/deployment.ts";
import { CONFIG_FILE } from "../operators/myproxy/nginx.ts";
import { condition, configMapData, list, type Outcome, verify, warningEvent } from "./checks.ts";

/** What the scenario needs. */
export interface ScenarioContext {
  client: Client;
  namespace: string;
  say: (line: string) => void;
}

const converge = 180_000;
const repair = 30_000;

function loadTestCompleted(ctx: ScenarioContext) {
  return verify(
    {
      description: "the LoadTest of 4 workers completes, its failed worker flagged, not restarted",
      check: async () => {
        const [test] = await list(ctx.client, LoadTest, ctx.namespace);
        const completed = condition(test, "Completed");
        const { succeeded, failed, completions } = test?.status ?? {};
        if (
          completed?.status !== "True" ||
          completed.reason !== "WorkersFailed" ||
          failed !== 1 ||
          succeeded !== 3
        )
          return undefined;
        return `Completed=True (${completed.reason}), completions ${completions}, ${failed} failed`;
      },
    },
    converge,
  );
}

function proxyReady(ctx: ScenarioContext) {
  return verify(
    {
      description: "the MyProxy is Ready and lists its 2 pods",
      check: async () => {
        const [proxy] = await list(ctx.client, MyProxy, ctx.namespace);
        const pods = proxy?.status?.podNames ?? [];
        return condition(proxy, "Ready")?.status === "True" && pods.length === 2
          ? `Ready=True, pods ${pods.join(", ")}`
          : undefined;
      },
    },
    converge,
  );
}

function routesJudged(ctx: ScenarioContext) {
  return verify(
    {
      description: "2 routes are Accepted; the route to a missing Service is not, and says why",
      check: async () => {
        const routes = await list(ctx.client, ProxyRoute, ctx.namespace);
        const accepted = routes.filter((r) => condition(r, "Accepted")?.status === "True");
        const rejected = routes.filter((r) => condition(r, "Accepted")?.status === "False");
        if (accepted.length !== 2 || rejected.length !== 1) return undefined;
        const why = condition(rejected[0], "Accepted");
        return `accepted ${accepted.map((r) => r.metadata.name).join(", ")}; ${rejected[0]?.metadata.name}: ${why?.reason}`;
      },
    },
    converge,
  );
}

async function tamperAndDelete(ctx: ScenarioContext, proxyName: string): Promise<Outcome[]> {
  const name = configMapName(proxyName);
  const original = (await configMapData(ctx.client, ctx.namespace, name))?.[CONFIG_FILE];
  const restored = async () =>
    (await configMapData(ctx.client, ctx.namespace, name))?.[CONFIG_FILE] === original
      ? "restored"
      : undefined;

  ctx.say(`\n  tampering with ConfigMap ${name} (as field manager "demo-tamperer")...`);
  await ctx.client.patch(
    ConfigMap,
    name,
    { data: { [CONFIG_FILE]: "# tampered by hand\n" } },
    { type: "merge", namespace: ctx.namespace, fieldManager: "demo-tamperer" },
  );
  const reverted = await verify(
    { description: `the tampered ConfigMap ${name} is reverted`, check: restored },
    repair,
  );
  const named = await verify(
    {
      description: "the repair is reported with an event naming who changed it",
      check: () => warningEvent(ctx.client, ctx.namespace, "DriftRepaired", "demo-tamperer"),
    },
    repair,
  );
  ctx.say(`  deleting ConfigMap ${name}...`);
  await ctx.client.delete(ConfigMap, name, { namespace: ctx.namespace });
  const recreated = await verify(
    { description: `the deleted ConfigMap ${name} comes back`, check: restored },
    repair,
  );
  return [reverted, named, recreated];
}

/** Runs the scenario and returns each expectation's outcome. */
export async function scenario(ctx: ScenarioContext): Promise<Outcome[]> {
  const converged = await Promise.all([loadTestCompleted(ctx), proxyReady(ctx), routesJudged(ctx)]);
  const config = await verify(
    {
      description: "the generated nginx configuration holds exactly the accepted routes",
      check: async () => {
        const text =
          (await configMapData(ctx.client, ctx.namespace, configMapName("edge")))?.[CONFIG_FILE] ?? "";
        return text.includes("api.example.com") &&
          text.includes("www.example.com") &&
          !text.includes("/legacy")
          ? "api.example.com and www.example.com served; /legacy left out"
          : undefined;
      },
    },
    converge,
  );
  return [...converged, config, ...(await tamperAndDelete(ctx, "edge"))];
}
