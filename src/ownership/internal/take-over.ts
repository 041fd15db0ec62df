/**
 * Keeping an exclusive child the operator's ({@link takeOverContent}): once per version of its
 * content, when the cache shows a writer other than the controller and its co-writers, its field
 * sets are read, and what others added is removed and their claims on the rest rewritten, in one
 * JSON patch (see `takeOver` in `../exclusive.ts`).
 */
import type { KubeObject, ResourceType } from "../../api/index.ts";
import { type Client, InvalidError } from "../../client/index.ts";
import { type Clock, systemClock } from "../../clock/index.ts";
import type { Writer } from "../drift.ts";
import { InvalidChildError } from "../errors.ts";
import {
  type CoWriter,
  defaultCoWriters,
  type ExclusiveOptions,
  hasForeignWriters,
  latestWriter,
  takeOver,
  takeOverPatch,
} from "../exclusive.ts";
import { markChecked, wasChecked } from "./checked.ts";
import { retryOnConflict } from "./conflict.ts";

/** The child an `ensureChild` call converges, as far as taking it over goes. */
export interface ExclusiveChild<C extends KubeObject> {
  readonly ctx: { readonly client: Client; readonly clock?: Pick<Clock, "now"> };
  readonly type: ResourceType<C>;
  readonly desired: KubeObject;
  readonly opts: { readonly exclusive?: boolean | ExclusiveOptions };
  /** The informer the child is cached in, and its key there. */
  readonly informer: object;
  readonly key: string;
}

/** What {@link takeOverContent} wrote. */
export interface TakenOver {
  /** Who added what it removed (none when it only moved claims). */
  readonly removedBy?: Writer;
  /** The resourceVersion its patch answered. */
  readonly resourceVersion?: string;
}

/**
 * Takes an exclusive child's content over: removes what other writers added and drops their
 * claims on the rest, in one JSON patch preconditioned on the version read. Answers undefined when
 * it wrote nothing. The cache only says who wrote, not what: `live` reads the field sets (the
 * answer of an apply has them too), only when a writer other than this controller and its
 * co-writers is there, and once per version of the child's content; `reread` reads the child
 * again after a conflict (the child changed since it was read). A patch the apiserver refuses as
 * invalid (a Job's pod template is immutable) throws {@link InvalidChildError} naming the fields.
 */
export async function takeOverContent<C extends KubeObject>(
  child: ExclusiveChild<C>,
  actual: C,
  live: () => Promise<C>,
  reread: () => Promise<C>,
): Promise<TakenOver | undefined> {
  const { ctx, informer, key } = child;
  const allow = coWriters(child.opts.exclusive);
  if (!allow || !hasForeignWriters(actual, ctx.client.fieldManager, allow)) return undefined;
  if (wasChecked(informer, key, actual)) return undefined;
  return retryOnConflict(live, reread, (fresh) => patchTakenOver(child, fresh, allow));
}

/** Writes {@link takeOverContent}'s patch for the child as read (`fresh`), when there is one. */
async function patchTakenOver<C extends KubeObject>(
  child: ExclusiveChild<C>,
  fresh: C,
  allow: readonly CoWriter[],
): Promise<TakenOver | undefined> {
  const { ctx, type, desired, informer, key } = child;
  const now = apiTime((ctx.clock ?? systemClock).now());
  const plan = takeOver(fresh, desired, ctx.client.fieldManager, allow, now);
  if (!plan.managedFields) {
    markChecked(informer, key, fresh);
    return undefined;
  }
  const { name = "", namespace, resourceVersion = "" } = fresh.metadata;
  const patch = takeOverPatch(plan, resourceVersion);
  const patched = await ctx.client.patch(type, name, patch, { type: "json", namespace }).catch((err) => {
    throw err instanceof InvalidError ? new InvalidChildError(`${type.kind} ${key}`, err, plan.removed) : err;
  });
  // Its content is the operator's now. Were the apiserver to keep a claim, the next version of the
  // child is checked again, rather than every reconcile writing the same patch.
  markChecked(informer, key, patched);
  return { removedBy: latestWriter(plan.removed), resourceVersion: patched.metadata.resourceVersion };
}

/** The co-writers of an exclusive child, or undefined when it is not exclusive. */
function coWriters(exclusive: boolean | ExclusiveOptions = true): readonly CoWriter[] | undefined {
  if (exclusive === false) return undefined;
  return (exclusive === true ? undefined : exclusive.allow) ?? defaultCoWriters;
}

/** Epoch milliseconds as the apiserver writes times: RFC 3339, UTC, whole seconds. */
function apiTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}
