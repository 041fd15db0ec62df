/** A reference from a dependent to its owner, used by garbage collection. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  /** At most one owner reference is the controller. */
  controller?: boolean;
  /** In foreground deletion, the owner waits for this dependent to be deleted first. */
  blockOwnerDeletion?: boolean;
}

/** One entry of `metadata.managedFields`: which manager owns which fields, and how it wrote them. */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: "Apply" | "Update";
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: unknown;
  subresource?: string;
}

/** `metadata` of every persisted object (metav1.ObjectMeta). */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
}

/** Any Kubernetes object: type metadata, object metadata, and kind-specific fields. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
}

/**
 * `T` with every field optional at every depth: what server-side apply takes, since it sends only
 * the fields its manager owns. Field names and value types stay checked.
 */
export type ApplyConfiguration<T> = T extends readonly (infer E)[]
  ? ApplyConfiguration<E>[]
  : T extends object
    ? { [K in keyof T]?: ApplyConfiguration<T[K]> }
    : T;

/** An apply configuration of kind `T` with the type and object metadata every request needs. */
export type ApplyObject<T extends KubeObject> = ApplyConfiguration<T> & KubeObject;

/** Which resource a request or watch is about: its API version, kind, plural name and scope. */
export interface ResourceType<T extends KubeObject = KubeObject> {
  /** `v1` for the core group, otherwise `<group>/<version>`; a literal type for the built-in kinds. */
  readonly apiVersion: T["apiVersion"];
  /** The kind's name, e.g. `ConfigMap`; a literal type for the built-in kinds. */
  readonly kind: T["kind"];
  /** Lower-case plural resource name used in URLs, e.g. `configmaps`. */
  readonly plural: string;
  /** True for namespaced kinds, false for cluster-scoped ones. */
  readonly namespaced: boolean;
  /** Subresources the apiserver serves for the kind (`status`, `scale`, ...), when known. */
  readonly subresources?: readonly string[];
  /** Phantom field carrying the object type; never set at run time. */
  readonly __object?: T;
}

/** The object type a {@link ResourceType} describes: as stored and read back, defaults filled in. */
export type ObjectOf<R> = R extends ResourceType<infer T> ? T : never;

/**
 * What a user writes to create an object of a {@link ResourceType}: for a kind made with
 * `defineKind`, its schemas' input type, where fields with a `.default()` may be left out (the
 * apiserver fills them in from the CRD); for any other kind, the object type. `Client.create`
 * takes it.
 *
 * @example
 * ```ts
 * const widget: InputOf<typeof Widget> = { apiVersion, kind, metadata: { name: "w" }, spec: {} };
 * const created = await client.create(Widget, widget); // ObjectOf<typeof Widget>: spec.replicas set
 * ```
 */
export type InputOf<R> = R extends CreatedFrom<infer I> ? I : ObjectOf<R>;

/**
 * A {@link ResourceType} whose objects are created from `I` rather than from the object type (a
 * kind whose schemas have defaults): {@link InputOf} reads `I` from it.
 */
export interface CreatedFrom<I extends KubeObject> {
  /** Phantom field carrying the input type; never set at run time. */
  readonly __input?: I;
}

/** Creates a {@link ResourceType} descriptor; `subresources` as API discovery lists them. */
export function resourceType<T extends KubeObject>(
  apiVersion: T["apiVersion"],
  kind: T["kind"],
  plural: string,
  namespaced: boolean,
  subresources?: readonly string[],
): ResourceType<T> {
  const type = { apiVersion, kind, plural, namespaced };
  return Object.freeze(subresources ? { ...type, subresources } : type);
}

/** The API group of an `apiVersion` (`""` for the core group). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

/** `plural.group` (`plural` in the core group), as RBAC rules and CRD names spell a resource whatever its version. */
export function resourceOf(type: { apiVersion: string; plural: string }): string {
  const group = groupOf(type.apiVersion);
  return group ? `${type.plural}.${group}` : type.plural;
}

/** `namespace/name`, or `name` for cluster-scoped objects: the key the queue and caches use. */
export type ObjectKey = string;

/** The {@link ObjectKey} of an object or of a namespace and name. */
export function objectKey(namespace: string | undefined, name: string): ObjectKey {
  return namespace ? `${namespace}/${name}` : name;
}

/** The {@link ObjectKey} of an object. */
export function keyOf(obj: KubeObject): ObjectKey {
  return objectKey(obj.metadata.namespace, obj.metadata.name ?? "");
}

/** Splits an {@link ObjectKey} into namespace (undefined for cluster-scoped) and name. */
export function parseKey(key: ObjectKey): { namespace?: string; name: string } {
  const slash = key.indexOf("/");
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
