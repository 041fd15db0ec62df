/**
 * A conformance session per member cluster of a fleet the operator runs in: one operator process
 * running the operator's controllers in a `Fleet` of the members, each member reached through a
 * fault proxy of its own, and for each member a session whose checks create objects there and
 * read the operator's requests to it.
 */
import { randomBytes } from "node:crypto";
import { Client, loadKubeconfig } from "../../client/index.ts";
import { installCrds } from "../../operator/index.ts";
import { admissionsOf } from "../../webhook/index.ts";
import { type ConversionHost, serveConversions } from "../conversions.ts";
import { type FaultProxy, startProxy, upstreamFromKubeconfig } from "../proxy/index.ts";
import { sessionWebhookServing } from "../webhooks.ts";
import { ConformanceError } from "./errors.ts";
import { OperatorProcess } from "./internal/operator-process.ts";
import type { RunnerSettings } from "./internal/protocol.ts";
import { runnerLaunch } from "./internal/runner-bundle.ts";
import { resolveSubject } from "./internal/subject.ts";
import {
  type ConformanceSession,
  KIT_FIELD_MANAGER,
  SESSION_LABEL,
  type SessionOptions,
  sessionOn,
} from "./session.ts";
import type { ConformanceSpec } from "./spec.ts";

/** A member cluster of a fleet the operator runs in ({@link openFleetSession}). */
export interface ConformanceMember {
  /** Its name in the fleet and in the report. */
  name: string;
  /** Its kubeconfig (the current context authenticating with a client certificate). */
  kubeconfig: string;
}

/** Sessions on the members of a fleet the operator runs in ({@link openFleetSession}). */
export interface FleetSession {
  /** A session per member, in order: its checks create objects in that member and read the operator's requests to it. */
  readonly members: readonly ConformanceSession[];
  /** Deletes the namespaces left in every member, stops the operator and the proxies (any member session's `close` does too). */
  close(): Promise<void>;
}

/** A member, the kit's client of it and the proxy the operator reaches it through. */
interface MemberLink {
  member: ConformanceMember;
  client: Client;
  proxy: FaultProxy;
  proxyConfig: string;
}

async function linkMember(member: ConformanceMember): Promise<MemberLink> {
  const proxy = await startProxy({
    upstream: upstreamFromKubeconfig(member.kubeconfig),
    historySize: 20_000,
  });
  const client = new Client(await loadKubeconfig({ kubeconfig: member.kubeconfig }), {
    qps: Number.POSITIVE_INFINITY,
    fieldManager: KIT_FIELD_MANAGER,
  });
  return { member, client, proxy, proxyConfig: proxy.kubeconfig(member.kubeconfig) };
}

/**
 * Opens a session per member cluster of a fleet: one operator process runs the operator's
 * controllers in a fleet (`kubeloop/multicluster`'s `Fleet`, a manager per member, as a fleet
 * operator's `setup` builds them on each cluster), reaching each member through a fault proxy of
 * its own; the operator's CRDs are installed in every member. Checks then run on each member's
 * session as on a cluster given by kubeconfig (outages and 410s simulated at its proxy). The kit
 * serves no admission webhooks in a fleet: an operator declaring some is refused.
 *
 * @example
 * ```ts
 * const fleet = await openFleetSession(spec, [
 *   { name: "member-0", kubeconfig: "member-0.kubeconfig" },
 *   { name: "member-1", kubeconfig: "member-1.kubeconfig" },
 * ]);
 * for (const member of fleet.members) console.log((await runCheck(member, idempotent)).outcome);
 * await fleet.close();
 * ```
 */
export async function openFleetSession(
  spec: ConformanceSpec,
  members: readonly ConformanceMember[],
  options: Pick<SessionOptions, "report"> = {},
): Promise<FleetSession> {
  const report = options.report ?? (() => {});
  const subject = await resolveSubject(spec);
  if (members.length === 0) throw new ConformanceError("a fleet session needs at least one member");
  if (admissionsOf(subject.operator.definition.webhooks).length > 0) {
    throw new ConformanceError(
      `${subject.operator.name} declares admission webhooks, which the kit does not serve in a fleet: check it on one cluster`,
    );
  }
  const links: MemberLink[] = [];
  const conversions: ConversionHost[] = [];
  const id = randomBytes(4).toString("hex");
  const launch = await runnerLaunch(subject.operatorPath, report);
  const fleetOf = (kubeconfig: (l: MemberLink) => string) =>
    links.map((l) => ({ name: l.member.name, kubeconfig: kubeconfig(l) }));
  const settings = (): RunnerSettings => ({
    operator: subject.operatorPath,
    kubeconfig: links[0]?.proxyConfig ?? "",
    watchInactivityMs: subject.timings.watchInactivityMs,
    relistMs: subject.timings.relistMs,
    logLevel: spec.logLevel ?? "info",
    webhooks: sessionWebhookServing(`${subject.operator.name}-conformance-${id}`, SESSION_LABEL, id),
    fleet: fleetOf((l) => l.proxyConfig),
  });
  let operator: OperatorProcess | undefined;
  let closing: Promise<void> | undefined;
  const sessions: (ConformanceSession & { discardAll(): Promise<void> })[] = [];
  const close = (): Promise<void> => {
    closing ??= (async () => {
      for (const session of sessions) await session.discardAll();
      await operator?.stop();
      for (const host of conversions) await host.stop();
      for (const link of links) await Promise.all([link.proxy.stop(), link.client.close()]);
    })();
    return closing;
  };
  try {
    for (const member of members) links.push(await linkMember(member));
    operator = new OperatorProcess(settings(), spec.nodeArgs, { forkAhead: true, launch });
    const shared = { spec, subject, id, report, operator, sharded: false };
    const replica = (changes: Partial<RunnerSettings>, direct = false) =>
      new OperatorProcess(
        { ...settings(), ...(direct ? { fleet: fleetOf((l) => l.member.kubeconfig) } : {}), ...changes },
        spec.nodeArgs,
        { launch },
      );
    for (const { client, proxy, member } of links) {
      const target = { client, proxy, cluster: undefined, member: member.name };
      sessions.push(sessionOn(target, shared, { replica, close }));
      await installCrds(client, subject.operator.kinds);
      conversions.push(await serveConversions(client, [subject.operator]));
    }
    await operator.start();
  } catch (err) {
    await close();
    throw err;
  }
  return { members: sessions, close };
}
