/**
 * Admission webhooks declared with their kind: {@link validating} (a handler that admits or
 * denies) and {@link defaulting} (a handler that returns the defaulted object; the framework
 * answers the JSON patch). A declaration is a value: the webhook server serves it at its
 * {@link AdmissionWebhook.path}, named as controller-runtime names it.
 */
import {
  groupOf,
  type KubeObject,
  type LabelSelector,
  type ResourceType,
  type ValidatingWebhookConfigurationObject,
} from "../api/index.ts";
import type { InformerCache } from "../cache/index.ts";
import type { Client } from "../client/index.ts";
import { BadWebhookRequestError, WebhookDeclarationError } from "./errors.ts";
import { type Json, jsonPatch } from "./internal/json-patch.ts";
import type { AdmissionRequest, AdmissionResponse, Operation, Status, UserInfo } from "./review.ts";
import type { Verdict } from "./verdict.ts";

/**
 * What a webhook's handler may change besides its answer, as the webhook configuration's
 * `sideEffects` says: `"None"` (the default: nothing, so the apiserver may call it for dry runs;
 * `ctx.client` refuses every write) or `"NoneOnDryRun"` (it may write, except when `ctx.dryRun`,
 * when `ctx.client` refuses writes).
 */
export type SideEffects = "None" | "NoneOnDryRun";

/** A CEL condition the apiserver checks before it calls the webhook (`matchConditions`). */
export type MatchCondition = NonNullable<
  NonNullable<ValidatingWebhookConfigurationObject["webhooks"]>[number]["matchConditions"]
>[number];

/**
 * Which requests the apiserver sends a webhook, and what it does when the webhook cannot answer:
 * the fields of its entry in the Validating/MutatingWebhookConfiguration that the manager and
 * `kubeloop generate` write.
 */
export interface AdmissionMatch {
  /**
   * `"Fail"` (the default): a request the webhook cannot answer (down, unreachable, timed out) is
   * refused, so nothing it would have refused gets in; `"Ignore"`: such a request is admitted.
   */
  readonly failurePolicy?: "Fail" | "Ignore";
  /** The operations sent. Default CREATE and UPDATE. */
  readonly operations?: readonly Operation[];
  /** CEL conditions a request must meet to be sent (all of them). */
  readonly matchConditions?: readonly MatchCondition[];
  /**
   * Only objects whose labels match are sent; for a built-in kind, added to the default selector,
   * which leaves out the operator's own objects (labelled `kubeloop.dev/operator: <operator>`).
   */
  readonly objectSelector?: LabelSelector;
  /**
   * Only objects in namespaces whose labels match are sent; added to the default selector (the
   * namespace an operator watching one watches, and for a built-in kind all but kube-system). A
   * selector that leaves out every namespace the operator watches is refused at start.
   */
  readonly namespaceSelector?: LabelSelector;
}

/** Options of {@link validating} and {@link defaulting}. */
export interface AdmissionOptions extends AdmissionMatch {
  /** Default `"None"`. */
  readonly sideEffects?: SideEffects;
  /**
   * How long the handler may take, in seconds, from 1 to 30 (the apiserver's range); past it the
   * request is refused with code 500 and `ctx.signal` aborts. Default 10, the apiserver's default.
   */
  readonly timeoutSeconds?: number;
}

/** The cache reads a webhook handler makes: `await ctx.cache.reader(Kind)`. */
export type WebhookCache = Pick<InformerCache, "reader">;

/** Everything an admission handler gets besides the object(s). */
export interface AdmissionContext {
  readonly operation: Operation;
  /** True for `--dry-run=server` requests: nothing may be changed ({@link AdmissionContext.client} refuses writes). */
  readonly dryRun: boolean;
  readonly userInfo: UserInfo;
  /** The whole request: namespace, name, subresource, options. */
  readonly request: AdmissionRequest;
  /** The manager's client; it refuses writes when {@link SideEffects} or a dry run forbid them. */
  readonly client: Client;
  /** The manager's informer cache, to check other objects. */
  readonly cache: WebhookCache;
  /** Aborts when the webhook's timeout passes or the apiserver hangs up. */
  readonly signal: AbortSignal;
}

/**
 * A validation handler: `obj` is the object as the operation would leave it (the object being
 * deleted for DELETE, the connect options for CONNECT), `oldObj` the object before an UPDATE.
 * Return nothing or {@link Verdict.allow} to admit, {@link Verdict.deny} to refuse.
 */
export type Validator<T extends KubeObject> = (
  obj: T,
  oldObj: T | undefined,
  ctx: AdmissionContext,
  // biome-ignore lint/suspicious/noConfusingVoidType: lets a handler that admits return nothing
) => Verdict | undefined | void | Promise<Verdict | undefined | void>;

/** A defaulting handler: returns the object with its defaults set (it may change and return `obj`). */
export type Defaulter<T extends KubeObject> = (obj: T, ctx: AdmissionContext) => T | Promise<T>;

/** The answer to a request, but for the uid the server echoes. */
export type AdmissionAnswer = Omit<AdmissionResponse, "uid">;

/** A declared admission webhook, served by a `WebhookServer`. */
export interface AdmissionWebhook {
  readonly type: "validating" | "mutating";
  /** Its name in the webhook configuration, where {@link webhookName}'s would be another's (the shard label's). */
  readonly name?: string;
  /** `/validate-<group, dots as dashes>-<version>-<kind, lower case>` or `/mutate-...`, as controller-runtime names it. */
  readonly path: string;
  /** The kind it admits, in the version the handler expects. */
  readonly resource: ResourceType;
  readonly sideEffects: SideEffects;
  readonly timeoutSeconds: number;
  /** Which requests the apiserver sends it, and its failure policy, as declared (defaults not applied). */
  readonly match: AdmissionMatch;
  /** Runs the handler on one request; throws what the handler throws. */
  admit(request: AdmissionRequest, ctx: AdmissionContext): Promise<AdmissionAnswer>;
}

/**
 * The name of an admission webhook within its configuration, as the apiserver shows it when it
 * cannot call it: `v<kind>-<version>.<group>` (`m` for a defaulting one), a qualified name of at
 * least three parts as the apiserver requires.
 */
export function webhookName(webhook: AdmissionWebhook): string {
  return webhook.name ?? nameFor(webhook.type === "validating" ? "v" : "m", webhook.resource);
}

/** `<prefix><kind>-<version>.<group>`, a group without a dot made `<group or core>.kubeloop.dev`. */
export function nameFor(prefix: string, { apiVersion, kind }: ResourceType): string {
  const group = groupOf(apiVersion);
  const domain = group.includes(".") ? group : `${group || "core"}.kubeloop.dev`;
  return `${prefix}${kind.toLowerCase()}-${apiVersion.split("/").at(-1)}.${domain}`;
}

/** `/<prefix>-<group, dots as dashes>-<version>-<kind, lower case>`, as controller-runtime names webhook paths. */
export function pathFor(prefix: string, type: ResourceType): string {
  const version = type.apiVersion.split("/").at(-1);
  return `/${prefix}-${groupOf(type.apiVersion).replaceAll(".", "-")}-${version}-${type.kind.toLowerCase()}`;
}

function checkedTimeout(path: string, options: AdmissionOptions): number {
  const seconds = options.timeoutSeconds ?? 10;
  if (Number.isInteger(seconds) && seconds >= 1 && seconds <= 30) return seconds;
  throw new WebhookDeclarationError(
    `webhook ${path}`,
    `timeoutSeconds is ${seconds}`,
    "give a whole number of seconds from 1 to 30 (the apiserver's range; default 10)",
  );
}

function declare(
  type: AdmissionWebhook["type"],
  resource: ResourceType,
  options: AdmissionOptions,
  admit: AdmissionWebhook["admit"],
): AdmissionWebhook {
  const path = pathFor(type === "validating" ? "validate" : "mutate", resource);
  const { sideEffects = "None", timeoutSeconds: _timeout, ...match } = options;
  const timeoutSeconds = checkedTimeout(path, options);
  return Object.freeze({ type, path, resource, sideEffects, timeoutSeconds, match, admit });
}

function objectOf<T extends KubeObject>(request: AdmissionRequest, field: "object" | "oldObject"): T {
  const obj = request[field];
  if (!obj) {
    throw new BadWebhookRequestError(
      400,
      `AdmissionRequest ${request.uid} (${request.operation}) has no ${field}`,
    );
  }
  return obj as unknown as T;
}

function denial(verdict: Verdict, request: AdmissionRequest): Status {
  const invalid = verdict.causes.length > 0;
  const causes = verdict.causes.map(({ field, message, type = "FieldValueInvalid" }) => ({
    type,
    field,
    message,
  }));
  return {
    status: "Failure",
    code: invalid ? 422 : 403,
    reason: invalid ? "Invalid" : "Forbidden",
    message: verdict.message,
    ...(invalid && {
      details: { name: request.name, group: request.kind.group, kind: request.kind.kind, causes },
    }),
  };
}

function answerOf(verdict: Verdict | undefined, request: AdmissionRequest): AdmissionAnswer {
  const warnings = verdict?.warnings.length ? { warnings: [...verdict.warnings] } : {};
  if (!verdict || verdict.allowed) return { allowed: true, ...warnings };
  return { allowed: false, status: denial(verdict, request), ...warnings };
}

/**
 * Declares a validating webhook for `kind`: `handler` admits or denies each request the
 * apiserver sends for it (which operations is the webhook configuration's choice).
 *
 * @example
 * ```ts
 * export const routeValidation = validating(ProxyRoute, async (route, _old, ctx) => {
 *   const routes = await ctx.cache.reader(ProxyRoute);
 *   const taken = routes
 *     .list()
 *     .find((r) => r.spec.host === route.spec.host && r.metadata.name !== route.metadata.name);
 *   if (taken) {
 *     return Verdict.deny(`host ${route.spec.host} is taken`, {
 *       causes: [{ field: "spec.host", message: `used by ${taken.metadata.name}` }],
 *     });
 *   }
 * });
 * ```
 */
export function validating<T extends KubeObject>(
  kind: ResourceType<T>,
  handler: Validator<T>,
  options: AdmissionOptions = {},
): AdmissionWebhook {
  return declare("validating", kind, options, async (request, ctx) => {
    const deleting = request.operation === "DELETE";
    const obj = objectOf<T>(request, deleting ? "oldObject" : "object");
    const old = request.operation === "UPDATE" ? objectOf<T>(request, "oldObject") : undefined;
    return answerOf((await handler(obj, old, ctx)) ?? undefined, request);
  });
}

/**
 * Declares a defaulting (mutating) webhook for `kind`: `handler` gets a copy of the object being
 * created or updated and returns it defaulted; the answer is the RFC 6902 JSON patch between the
 * two (none when nothing changed). DELETE and CONNECT requests are admitted unchanged.
 *
 * @example
 * ```ts
 * export const widgetDefaults = defaulting(Widget, (widget) => {
 *   widget.spec.replicas ??= 1;
 *   return widget;
 * });
 * ```
 */
export function defaulting<T extends KubeObject>(
  kind: ResourceType<T>,
  handler: Defaulter<T>,
  options: AdmissionOptions = {},
): AdmissionWebhook {
  return declare("mutating", kind, options, async (request, ctx) => {
    if (request.operation !== "CREATE" && request.operation !== "UPDATE") return { allowed: true };
    const original = objectOf<T>(request, "object");
    const defaulted = await handler(structuredClone(original), ctx);
    const patch = jsonPatch(original as unknown as Json, JSON.parse(JSON.stringify(defaulted)));
    if (patch.length === 0) return { allowed: true };
    return {
      allowed: true,
      patchType: "JSONPatch",
      patch: Buffer.from(JSON.stringify(patch)).toString("base64"),
    };
  });
}
