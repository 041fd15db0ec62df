/**
 * Storage version migration. When a CRD's storage version changes (v1alpha1 → v1beta1), objects
 * stay stored in the old one until written again, and the CRD's `status.storedVersions` keeps
 * listing it; the old version can be dropped from the CRD only once it is not listed there.
 * {@link migrateStoredVersions} rewrites every object, then trims `storedVersions` to the storage
 * version, as kube-storage-version-migrator does: an update that changes nothing is written again
 * by the apiserver when its encoding differs, i.e. when the object was stored in another version,
 * and not at all when it is already in the storage version. `kubeloop migrate` runs it for every
 * kind of an operator.
 */
import {
  CustomResourceDefinition,
  type CustomResourceDefinitionObject,
  type KubeObject,
  type ResourceType,
  resourceType,
} from "../api/index.ts";
import { type Client, ConflictError, NotFoundError } from "../client/index.ts";
import { KubeloopError } from "../errors/index.ts";
import { type AnyKind, crdFor } from "../schema/index.ts";

/** What {@link migrateStoredVersions} did for one CRD. */
export interface StorageMigration {
  /** The CRD, `<plural>.<group>`. */
  readonly crd: string;
  /** Its storage version. */
  readonly storage: string;
  /** `status.storedVersions` before; after, it is `[storage]`. */
  readonly storedBefore: readonly string[];
  /** Objects rewritten (0 when only the storage version was stored: nothing to do). */
  readonly rewritten: number;
}

/**
 * Reading or rewriting the objects of a CRD failed; nothing was trimmed from its
 * `storedVersions`, and running the migration again resumes it. Code `KL_STORAGE_MIGRATION`.
 */
export class StorageMigrationError extends KubeloopError {
  constructor(crd: CustomResourceDefinitionObject, doing: string, cause: unknown) {
    const storage = storageVersionOf(crd);
    const viaWebhook = crd.spec.conversion?.strategy === "Webhook";
    const fix = viaWebhook
      ? "objects stored in another version are read through the CRD's conversion webhook: start the operator that serves it, then migrate again"
      : "fix the cause, then migrate again (objects already rewritten stay so)";
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      "KL_STORAGE_MIGRATION",
      `migrating ${crd.metadata.name} to ${storage}: ${doing} failed: ${reason}. Nothing was removed from ` +
        `its status.storedVersions; ${fix}.`,
      { cause },
    );
  }
}

function storageVersionOf(crd: CustomResourceDefinitionObject): string {
  return crd.spec.versions.find((v) => v.storage)?.name ?? "";
}

/**
 * The versions the CRD's `status.storedVersions` lists besides its storage version: objects may
 * still be stored in them until {@link migrateStoredVersions} rewrites them.
 */
export function staleStoredVersions(crd: CustomResourceDefinitionObject): string[] {
  const storage = storageVersionOf(crd);
  return (crd.status?.storedVersions ?? []).filter((v) => v !== storage);
}

/** The CRD's objects as its storage version serves them. */
function storageTypeOf(crd: CustomResourceDefinitionObject): ResourceType {
  const { group, names, scope } = crd.spec;
  return resourceType(`${group}/${storageVersionOf(crd)}`, names.kind, names.plural, scope === "Namespaced");
}

/**
 * Rewrites every object of `kind` in its CRD's storage version and trims the CRD's
 * `status.storedVersions` to it; does nothing when only the storage version is stored. An object
 * changed or deleted since it was listed is left alone (a write since has stored it anew). Rejects
 * with {@link StorageMigrationError} naming the cause and the fix (a conversion webhook that does
 * not answer, say), having trimmed nothing.
 *
 * @example
 * ```ts
 * const { rewritten, storedBefore } = await migrateStoredVersions(client, MyProxy);
 * ```
 */
export async function migrateStoredVersions(
  client: Client,
  kind: AnyKind,
  options: { signal?: AbortSignal } = {},
): Promise<StorageMigration> {
  const { signal } = options;
  const name = crdFor(kind).metadata.name;
  const crd = await client.get(CustomResourceDefinition, name, { signal });
  const storage = storageVersionOf(crd);
  const storedBefore = crd.status?.storedVersions ?? [];
  const done = { crd: name, storage, storedBefore };
  if (staleStoredVersions(crd).length === 0) return { ...done, rewritten: 0 };
  const rewritten = await rewriteAll(client, crd, signal);
  const storedVersions = [storage];
  await client.status
    .patch(CustomResourceDefinition, name, { status: { storedVersions } }, { type: "merge", signal })
    .catch((err: unknown) => {
      throw new StorageMigrationError(crd, "setting status.storedVersions", err);
    });
  return { ...done, rewritten };
}

/** Rewrites the CRD's objects a page at a time; resolves with how many. */
async function rewriteAll(
  client: Client,
  crd: CustomResourceDefinitionObject,
  signal: AbortSignal | undefined,
): Promise<number> {
  const type = storageTypeOf(crd);
  let rewritten = 0;
  let next: string | undefined;
  do {
    const page = await client.listPage(type, { continue: next, signal }).catch((err: unknown) => {
      throw new StorageMigrationError(crd, `listing its objects in ${storageVersionOf(crd)}`, err);
    });
    for (const object of page.items) await rewrite(client, type, object, crd, signal);
    rewritten += page.items.length;
    next = page.continue;
  } while (next);
  return rewritten;
}

/** Writes `object` back unchanged; one changed or deleted since it was read is stored anew already. */
async function rewrite(
  client: Client,
  type: ResourceType,
  object: KubeObject,
  crd: CustomResourceDefinitionObject,
  signal: AbortSignal | undefined,
): Promise<void> {
  try {
    await client.update(type, object, { signal });
  } catch (err) {
    if (err instanceof ConflictError || err instanceof NotFoundError) return;
    const { namespace, name } = object.metadata;
    throw new StorageMigrationError(crd, `rewriting ${namespace ? `${namespace}/` : ""}${name}`, err);
  }
}
