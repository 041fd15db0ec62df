/**
 * Taking back what a local run applied when it stops: its webhook configurations and its CRDs'
 * conversion stanzas call `https://127.0.0.1:<port>`, which nothing serves once the run ends.
 * Left in place, every create of a kind it admits fails (`connection refused`), and the deployed
 * configuration (`kubectl apply -k`) is refused: a `clientConfig` merged from the run's `url` and
 * the deployment's `service` has both.
 *
 * Only what still calls this run is taken back: what another run (or a deployment) has since
 * pointed elsewhere is left alone, checked by resourceVersion so that a change between the read
 * and the write wins. A configuration is deleted: the run made it, and without it the kind is
 * admitted as before the run. A conversion stanza is pointed at the operator's deployed Service
 * instead, as `kubeloop generate` writes it (without the run's CA): a deployed operator converts
 * again at once, and without one a conversion fails loudly, as it did while the run was gone.
 * Strategy `None`, the CRD's state before the run, would be worse than either: the apiserver would
 * relabel objects between versions of different shapes and prune what the other lacks, silently.
 */
import type { Logger } from "pino";
import {
  CustomResourceDefinition,
  type CustomResourceDefinitionObject,
  type KubeObject,
  MutatingWebhookConfiguration,
  type MutatingWebhookConfigurationObject,
  type ResourceType,
  ValidatingWebhookConfiguration,
  type ValidatingWebhookConfigurationObject,
} from "../../api/index.ts";
import { type Client, ConflictError, NotFoundError } from "../../client/index.ts";
import type { WebhookClientConfig } from "../configuration.ts";

type Configuration = ValidatingWebhookConfigurationObject | MutatingWebhookConfigurationObject;

/** What a run applied: its configurations and its CRD conversion patches. */
export interface AppliedWebhooks {
  readonly configurations: readonly Configuration[];
  readonly conversions: readonly CustomResourceDefinitionObject[];
}

/** How long taking back one object may take: a stop must end even with the apiserver gone. */
const REQUEST_TIMEOUT_MS = 10_000;

/** Where a `clientConfig` sends requests, its CA aside. */
function target(config: WebhookClientConfig | undefined): string {
  return JSON.stringify({ url: config?.url, service: config?.service });
}

/** The descriptor of a webhook configuration's kind. */
export function configurationType(kind: string): ResourceType<Configuration> {
  return (
    kind === "ValidatingWebhookConfiguration" ? ValidatingWebhookConfiguration : MutatingWebhookConfiguration
  ) as ResourceType<Configuration>;
}

/** Whether every entry of `live` still calls where the entry of the same name in `applied` did. */
function callsThisRun(live: Configuration, applied: Configuration): boolean {
  const ours = new Map((applied.webhooks ?? []).map((w) => [w.name, target(w.clientConfig)]));
  const entries = live.webhooks ?? [];
  return entries.length > 0 && entries.every((w) => ours.get(w.name) === target(w.clientConfig));
}

/** Deletes the configuration `applied` names when it still calls this run; resolves with what was done. */
async function withdrawConfiguration(client: Client, applied: Configuration): Promise<string> {
  const type = configurationType(applied.kind);
  const name = String(applied.metadata.name);
  const signal = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  const live = await client.get(type, name, { signal });
  if (!callsThisRun(live, applied)) return "left: it calls something else now";
  const resourceVersion = String(live.metadata.resourceVersion);
  await client.delete(type, name, { signal, preconditions: { resourceVersion } });
  return "deleted";
}

/**
 * Points the conversion `applied` put on a CRD at `deployed` (the operator's Service) when it
 * still calls this run; resolves with what was done.
 */
async function withdrawConversion(
  client: Client,
  applied: CustomResourceDefinitionObject,
  deployed: CustomResourceDefinitionObject,
  fieldManager: string,
): Promise<string> {
  const name = String(applied.metadata.name);
  const signal = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  const live = await client.get(CustomResourceDefinition, name, { signal });
  const calls = (crd: CustomResourceDefinitionObject) => target(crd.spec.conversion?.webhook?.clientConfig);
  if (calls(live) !== calls(applied)) return "left: it converts through something else now";
  const metadata = { ...deployed.metadata, resourceVersion: live.metadata.resourceVersion };
  const patch = { ...deployed, metadata } as KubeObject;
  await client.apply(CustomResourceDefinition as ResourceType, patch, { force: true, fieldManager, signal });
  return `converting through ${calls(deployed)}`;
}

/** What to do by hand when taking back `object` failed, for the log line. */
function byHand(object: KubeObject): string {
  const name = String(object.metadata.name);
  if (object.kind !== "CustomResourceDefinition")
    return `run kubectl delete ${object.kind.toLowerCase()} ${name}`;
  return `apply the CRD ${name} as kubeloop generate writes it (crds.yaml), whose conversion calls the operator's Service`;
}

/**
 * Takes back what `applied` lists (see the module's TSDoc), pointing each conversion at the CRD
 * patch of the same name among `deployed`, and logs each outcome; a failure is logged with what
 * to do by hand, and does not stop the others.
 */
export async function withdrawWebhooks(
  client: Client,
  applied: AppliedWebhooks,
  deployed: readonly CustomResourceDefinitionObject[],
  fieldManager: string,
  logger: Logger,
): Promise<void> {
  const deployedAs = new Map(deployed.map((crd) => [crd.metadata.name, crd]));
  const conversion = (crd: CustomResourceDefinitionObject) => () =>
    withdrawConversion(client, crd, deployedAs.get(crd.metadata.name) ?? crd, fieldManager);
  const steps = [
    ...applied.configurations.map((c) => [c, () => withdrawConfiguration(client, c)] as const),
    ...applied.conversions.map((c) => [c, conversion(c)] as const),
  ];
  const done = "took back what the run applied for its webhooks";
  for (const [object, withdraw] of steps) {
    const what = { kind: object.kind, name: object.metadata.name };
    try {
      logger.info({ ...what, outcome: await withdraw() }, done);
    } catch (err) {
      if (err instanceof NotFoundError || err instanceof ConflictError) {
        logger.info({ ...what, outcome: "left: gone or changed meanwhile" }, done);
        continue;
      }
      const failed =
        "could not take back what the run applied for its webhooks: it calls a server that is gone";
      logger.error({ err, ...what }, `${failed}; ${byHand(object)}`);
    }
  }
}
