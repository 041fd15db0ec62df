/**
 * Installs an operator: server-side applies the CRD of each kind, waits until the apiserver has
 * Established every one — serves it — as `kubectl wait --for=condition=Established` does, then
 * server-side applies the other objects it ships (its `manifests`). `kubeloop install` and
 * `kubeloop run --install-crds` use it.
 */
import {
  CustomResourceDefinition,
  type CustomResourceDefinitionObject,
  type KubeObject,
} from "../api/index.ts";
import type { Client } from "../client/index.ts";
import { type Clock, systemClock } from "../clock/index.ts";
import { KubeloopError } from "../errors/index.ts";
import { type AnyKind, crdFor } from "../schema/index.ts";
import type { Operator } from "./operator.ts";

const pollIntervalMs = 250;

/** Options of {@link waitEstablished}. */
export interface WaitEstablishedOptions {
  /** How long to wait for every CRD to be Established. Default 60 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
  clock?: Clock;
}

/** Options of {@link installCrds}: how it waits for the CRDs it applied. */
export type InstallCrdsOptions = WaitEstablishedOptions;

/**
 * A CRD was applied but the apiserver did not establish it in time; the message gives its
 * conditions (e.g. `NamesAccepted=False` when another CRD holds the names). Code
 * `KL_CRD_NOT_ESTABLISHED`.
 */
export class CrdNotEstablishedError extends KubeloopError {
  constructor(name: string, timeoutMs: number, crd: CustomResourceDefinitionObject | undefined) {
    const conditions = (crd?.status?.conditions ?? [])
      .map((c) => `${c.type}=${c.status}${c.message ? ` (${c.message})` : ""}`)
      .join(", ");
    super(
      "KL_CRD_NOT_ESTABLISHED",
      `the CRD ${name} was applied but not Established within ${timeoutMs / 1000} s; its conditions: ` +
        `${conditions || "none yet"}. Look at \`kubectl describe crd ${name}\`.`,
    );
  }
}

/**
 * Applies the CRD of every kind (server-side apply, taking over fields other managers hold) and
 * resolves with them once each is Established. Rejects with {@link CrdNotEstablishedError} after
 * `timeoutMs`, and with the client's typed error when an apply is refused.
 *
 * @example
 * ```ts
 * const client = await Client.load();
 * for (const crd of await installCrds(client, [Widget])) console.log(`${crd.metadata.name} established`);
 * ```
 */
export async function installCrds(
  client: Client,
  kinds: readonly AnyKind[],
  options: InstallCrdsOptions = {},
): Promise<CustomResourceDefinitionObject[]> {
  const crds = kinds.map(crdFor);
  for (const crd of crds)
    await client.apply(CustomResourceDefinition, crd, { force: true, signal: options.signal });
  return waitEstablished(
    client,
    crds.map((crd) => crd.metadata.name),
    options,
  );
}

/**
 * Resolves with the CRDs `names` once the apiserver has Established each — serves it — polling as
 * `kubectl wait --for=condition=Established` does, except that a CRD whose status the apiserver has
 * not written yet is waited for rather than an error (kubectl fails at once on it:
 * `.status.conditions accessor error: <nil>`). Rejects with {@link CrdNotEstablishedError} after
 * `timeoutMs` (default 60 s), and with the client's `NotFoundError` for a CRD that does not exist.
 *
 * @example
 * ```ts
 * const [crd] = await waitEstablished(client, ["widgets.example.com"], { timeoutMs: 30_000 });
 * ```
 */
export async function waitEstablished(
  client: Client,
  names: readonly string[],
  options: WaitEstablishedOptions = {},
): Promise<CustomResourceDefinitionObject[]> {
  const { timeoutMs = 60_000, signal, clock = systemClock } = options;
  const deadline = clock.monotonicMs() + timeoutMs;
  const established: CustomResourceDefinitionObject[] = [];
  for (const name of names)
    established.push(await untilEstablished(client, name, { deadline, timeoutMs, signal, clock }));
  return established;
}

/** Polls the CRD `name` until it is Established, or throws at `deadline`. */
async function untilEstablished(
  client: Client,
  name: string,
  wait: { deadline: number; timeoutMs: number; signal?: AbortSignal; clock: Clock },
): Promise<CustomResourceDefinitionObject> {
  for (;;) {
    const crd = await client.get(CustomResourceDefinition, name, { signal: wait.signal });
    if (crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True")) return crd;
    if (wait.clock.monotonicMs() >= wait.deadline)
      throw new CrdNotEstablishedError(name, wait.timeoutMs, crd);
    await wait.clock.sleep(pollIntervalMs, wait.signal);
  }
}

/**
 * Server-side applies each object in turn (taking over fields other managers hold), as the kind
 * the apiserver's discovery serves for its `apiVersion` and `kind`, and resolves with what the
 * apiserver stored. Rejects with `KindNotFoundError` for a kind the apiserver does not serve, and
 * with the client's typed error when an apply is refused.
 */
export async function applyManifests(
  client: Client,
  objects: readonly KubeObject[],
  options: Pick<InstallCrdsOptions, "signal"> = {},
): Promise<KubeObject[]> {
  const applied: KubeObject[] = [];
  for (const object of objects) {
    const type = await client.discovery.resolve(object.apiVersion, object.kind);
    applied.push(await client.apply(type, object, { force: true, signal: options.signal }));
  }
  return applied;
}

/** What {@link installOperator} installed. */
export interface InstalledOperator {
  /** The operator's CRDs, each Established. */
  readonly crds: CustomResourceDefinitionObject[];
  /** The other objects it ships (its definition's `manifests`), as applied. */
  readonly manifests: KubeObject[];
}

/**
 * Installs `operator`: its CRDs ({@link installCrds}), then the objects of its definition's
 * `manifests` ({@link applyManifests}), with the client's field manager. An admission policy
 * among them takes effect once the apiserver has loaded it, shortly after.
 *
 * @example
 * ```ts
 * const client = await Client.load({}, { fieldManager: "kubeloop" });
 * const { crds, manifests } = await installOperator(client, operator);
 * ```
 */
export async function installOperator(
  client: Client,
  operator: Operator,
  options: InstallCrdsOptions = {},
): Promise<InstalledOperator> {
  const crds = await installCrds(client, operator.kinds, options);
  const manifests = await applyManifests(client, operator.definition.manifests?.() ?? [], options);
  return { crds, manifests };
}
