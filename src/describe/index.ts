/**
 * @module describe
 *
 * What an object is doing, joined up in one place, for any kind on any cluster (`kubeloop
 * describe`): {@link describeObject} builds a {@link Description} — the object's kstatus with its
 * reason, its conditions as a timeline (each `lastTransitionTime`, and the earlier transitions
 * kubeloop's condition events tell, repeats counted from their series), the tree of objects it
 * owns through owner references with each one's kstatus and Ready condition, the Events of the
 * whole tree in time order, and the fields of each object that more than one field manager, or a
 * manager other than its owner's controller, claims in `managedFields`. {@link renderDescription}
 * turns it into text, with colours and symbols for a terminal or plain; JSON is the description
 * itself. The requests do not grow with the tree: one list per kind, never one per object.
 * Described on a hub with `fleetNamespace`, an object also shows its children in the member
 * clusters of the hub's kubeconfig Secrets there: the objects labelled with its uid
 * (`kubeloop.dev/hub-owner-uid`, which `withHubOwner` of `kubeloop/multicluster` stamps), one
 * label-selected list per kind in each member.
 *
 * Not a watcher and not a cache: it reads the cluster once, when called. Not for automation
 * either: Events are history for humans; scripts read conditions (`kubectl wait`, kstatus).
 *
 * @example
 * ```ts
 * import { Client } from "kubeloop";
 * import { describeObject, renderDescription } from "kubeloop/describe";
 *
 * const client = await Client.load();
 * const description = await describeObject(client, "myproxy/edge", { namespace: "shop" });
 * process.stdout.write(renderDescription(description, { color: true, symbols: true }));
 * ```
 */
export {
  type ClusterChildren,
  type DescribedObject,
  type DescribeOptions,
  type Description,
  describeObject,
} from "./describe.ts";
export { InvalidTargetError, ObjectNotFoundError, UnknownResourceError } from "./errors.ts";
export type { FieldConflict } from "./internal/fields.ts";
export type { ConditionState, EventRegarding, TimelineEntry, TreeEvent } from "./internal/history.ts";
export type { SkippedResource } from "./internal/tree.ts";
export { type RenderOptions, renderDescription } from "./render.ts";
