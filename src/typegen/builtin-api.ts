/**
 * The built-in API as TypeScript modules: one per group/version (`apps/v1.ts`, `core/v1.ts`) with
 * every definition of its Go package, an interface per kind (`DeploymentObject`) and a descriptor
 * per resource (`Deployment`, from `descriptors.ts`); `meta/v1.ts` for apimachinery's shared types
 * (ObjectMeta is kubeloop's own); and `preferred.ts`, re-exporting the preferred version of each kind.
 */
import {
  aliasDeclaration,
  descriptorDeclaration,
  interfaceDeclaration,
  isObjectWithProperties,
  kindProperties,
  kindTypeDeclaration,
  objectTypeName,
  type ResourceInfo,
} from "./emit.ts";
import { compareText, ModuleBuilder } from "./module.ts";
import type { Schema } from "./schema.ts";
import type { ApiSnapshot } from "./snapshot.ts";

/** Where apimachinery's definitions (ObjectMeta, LabelSelector, Time, Quantity, ...) go. */
const META_MODULE = "meta/v1";
/** Definitions kubeloop declares itself in `src/api/meta.ts`, re-exported by `meta/v1`. */
const KUBELOOP_META = ["ManagedFieldsEntry", "ObjectMeta", "OwnerReference"];
const REF_PREFIX = "#/components/schemas/";

/**
 * The generated modules, keyed by path relative to `src/api` (`apps/v1.ts`, `preferred.ts`), as
 * unformatted TypeScript source.
 */
export function generateApi(snapshot: ApiSnapshot): Map<string, string> {
  const model = new ApiModel(snapshot);
  const files = new Map<string, string>();
  for (const module of model.modules()) files.set(`${module}.ts`, model.render(module));
  files.set("descriptors.ts", descriptorsModule(snapshot, model));
  files.set("preferred.ts", preferredModule(snapshot, model));
  return files;
}

/** `core/v1` for `v1`, `apps/v1` for `apps/v1`: where a group/version's module lives. */
export function modulePath(apiVersion: string): string {
  return apiVersion.includes("/") ? apiVersion : `core/${apiVersion}`;
}

class ApiModel {
  readonly #snapshot: ApiSnapshot;
  /** Every definition of every document, by name (`io.k8s.api.apps.v1.Deployment`). */
  readonly #definitions = new Map<string, Schema>();
  /** Go package (`io.k8s.api.apps.v1`) → module path (`apps/v1`). */
  readonly #packages = new Map<string, string>();
  /** Definitions that are the schema of a served resource → that resource. */
  readonly #kinds = new Map<string, ResourceInfo>();

  constructor(snapshot: ApiSnapshot) {
    this.#snapshot = snapshot;
    for (const [apiVersion, api] of sortedEntries(snapshot.groupVersions)) {
      for (const [name, schema] of sortedEntries(api.openapi.components?.schemas ?? {})) {
        if (!this.#definitions.has(name)) this.#definitions.set(name, schema);
        if (ownKind(schema, apiVersion)) this.#packages.set(packageOf(name), modulePath(apiVersion));
      }
    }
    for (const [apiVersion, api] of sortedEntries(snapshot.groupVersions)) {
      for (const resource of resourcesOf(apiVersion, api.resources)) {
        this.#kinds.set(this.#definitionOf(resource), resource);
      }
    }
  }

  /** Every module path, sorted. */
  modules(): string[] {
    return [...new Set([...this.#definitions.keys()].map((name) => this.#moduleOf(name)))].sort();
  }

  /** Every resource of every module, by module and kind. */
  allResources(): ResourceInfo[] {
    return this.modules().flatMap((module) => this.resources(module));
  }

  /** The resources (kinds with descriptors) of a module, by kind. */
  resources(module: string): ResourceInfo[] {
    return [...this.#kinds.values()]
      .filter((resource) => modulePath(resource.apiVersion) === module)
      .sort((a, b) => compareText(a.kind, b.kind));
  }

  render(module: string): string {
    const builder = new ModuleBuilder((ref, into) => this.#refName(ref, module, into));
    const names = [...this.#definitions.keys()].filter((name) => this.#moduleOf(name) === module).sort();
    builder.reserve(...names.map((name) => this.#localName(name)));
    if (module === META_MODULE) reexportKubeloopMeta(builder);
    for (const name of names) {
      if (module === META_MODULE && KUBELOOP_META.includes(shortName(name))) continue;
      builder.declare(() => this.#declaration(name, builder));
    }
    const resources = this.resources(module);
    for (const resource of resources) {
      builder.reexport(`${descriptorName(resource)} as ${resource.kind}`, "../descriptors.ts", false);
      builder.declare(() => kindTypeDeclaration(resource.kind));
    }
    const apiVersion = module.replace(/^core\//, "");
    return builder.render(
      `Kubernetes ${module === META_MODULE ? "apimachinery meta/v1" : apiVersion}: types${resources.length > 0 ? " and descriptors" : ""}, ` +
        `generated from the OpenAPI v3 of kube-apiserver ${this.#snapshot.version}.\n` +
        "Do not edit: run `npm run generate:api-types`.",
    );
  }

  #declaration(name: string, builder: ModuleBuilder): string {
    const schema = this.#definitions.get(name) as Schema;
    const resource = this.#kinds.get(name);
    const local = this.#localName(name);
    if (resource) {
      const objectMeta = builder.refName(`${REF_PREFIX}io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta`);
      return interfaceDeclaration(local, schema, builder, { fixed: kindProperties(resource, objectMeta) });
    }
    return isObjectWithProperties(schema)
      ? interfaceDeclaration(local, schema, builder)
      : aliasDeclaration(local, schema, builder);
  }

  #refName(ref: string, from: string, builder: ModuleBuilder): string {
    const name = ref.slice(REF_PREFIX.length);
    const module = this.#moduleOf(name);
    if (module === from) return this.#localName(name);
    const alias = moduleAlias(module);
    builder.importNamespace(alias, `../${module}.ts`);
    return `${alias}.${this.#localName(name)}`;
  }

  #localName(name: string): string {
    const resource = this.#kinds.get(name);
    return resource ? objectTypeName(resource.kind) : shortName(name);
  }

  #moduleOf(name: string): string {
    const pkg = packageOf(name);
    if (pkg.startsWith("io.k8s.apimachinery.")) return META_MODULE;
    const module = this.#packages.get(pkg);
    if (!module) throw new Error(`no group/version serves a kind of package ${pkg} (definition ${name})`);
    return module;
  }

  #definitionOf(resource: ResourceInfo): string {
    const module = modulePath(resource.apiVersion);
    for (const [name, schema] of this.#definitions) {
      if (this.#moduleOf(name) === module && ownKind(schema, resource.apiVersion)?.kind === resource.kind) {
        return name;
      }
    }
    throw new Error(`no OpenAPI definition of ${resource.apiVersion} ${resource.kind}`);
  }
}

/** In `meta/v1`: `ObjectMeta` & co. are kubeloop's, imported from `src/api/meta.ts` and re-exported. */
function reexportKubeloopMeta(builder: ModuleBuilder): void {
  for (const name of KUBELOOP_META) builder.importName(name, "../meta.ts", true);
  builder.declare(
    () =>
      "/** The object metadata every kind shares, as kubeloop declares it (`kubeloop/api`). */\n" +
      `export type { ${KUBELOOP_META.join(", ")} };\n`,
  );
}

/** The resources of a discovery list that have a kind, with their subresources. */
function resourcesOf(
  apiVersion: string,
  list: ApiSnapshot["groupVersions"][string]["resources"],
): ResourceInfo[] {
  return list
    .filter((resource) => !resource.name.includes("/"))
    .map((resource) => ({
      apiVersion,
      kind: resource.kind,
      plural: resource.name,
      namespaced: resource.namespaced,
      subresources: list
        .filter((sub) => sub.name.startsWith(`${resource.name}/`))
        .map((sub) => sub.name.slice(resource.name.length + 1))
        .sort(),
    }));
}

/** The group/version/kind a definition is the schema of, when it is one kind of `apiVersion` only. */
function ownKind(schema: Schema, apiVersion: string): { kind: string } | undefined {
  const gvks = schema["x-kubernetes-group-version-kind"] ?? [];
  const [gvk] = gvks;
  if (gvks.length !== 1 || !gvk) return undefined;
  return (gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version) === apiVersion ? gvk : undefined;
}

/**
 * `preferred.ts`: every kind at its group's preferred version, for `kubeloop/api`. A kind served
 * by two groups (Event: core and events.k8s.io) is taken from the one that is not core.
 */
function preferredModule(snapshot: ApiSnapshot, model: ApiModel): string {
  const chosen = new Map<string, ResourceInfo>();
  for (const [group, version] of sortedEntries(snapshot.preferred)) {
    const apiVersion = group ? `${group}/${version}` : version;
    if (!snapshot.groupVersions[apiVersion]) continue;
    for (const resource of model.resources(modulePath(apiVersion))) {
      const taken = chosen.get(resource.kind);
      if (taken?.apiVersion.includes("/")) continue;
      chosen.set(resource.kind, resource);
    }
  }
  const builder = new ModuleBuilder();
  for (const resource of chosen.values()) {
    const module = modulePath(resource.apiVersion);
    builder.reexport(`${descriptorName(resource)} as ${resource.kind}`, "./descriptors.ts", false);
    builder.reexport(objectTypeName(resource.kind), `./${module}.ts`, true);
    builder.importNamespace(moduleAlias(module), `./${module}.ts`);
    builder.declare(() =>
      kindTypeDeclaration(resource.kind, `${moduleAlias(module)}.${objectTypeName(resource.kind)}`),
    );
  }
  return builder.render(
    `The preferred version of every built-in kind of kube-apiserver ${snapshot.version}: its descriptor and\n` +
      "its object type, under the kind's name and as `<Kind>Object`. Do not edit: run `npm run generate:api-types`.",
  );
}

/**
 * `descriptors.ts`: every descriptor, named `<module alias>_<Kind>` (`appsv1_Deployment`), which
 * the group/version modules and `preferred.ts` re-export under the kind's name. One small module
 * of values: importing kinds loads it, never the (type-only) modules they are declared in.
 */
function descriptorsModule(snapshot: ApiSnapshot, model: ApiModel): string {
  const builder = new ModuleBuilder();
  builder.importName("resourceType", "./meta.ts", false);
  for (const resource of model.allResources()) {
    const module = modulePath(resource.apiVersion);
    builder.importNamespace(moduleAlias(module), `./${module}.ts`);
    const objectType = `${moduleAlias(module)}.${objectTypeName(resource.kind)}`;
    builder.declare(() => descriptorDeclaration(resource, descriptorName(resource), objectType));
  }
  return builder.render(
    `The descriptor of every built-in kind of kube-apiserver ${snapshot.version}, re-exported under its kind's\n` +
      "name by its group/version's module and by `preferred.ts`. Do not edit: run `npm run generate:api-types`.",
  );
}

function descriptorName(resource: ResourceInfo): string {
  return `${moduleAlias(modulePath(resource.apiVersion))}_${resource.kind}`;
}

function packageOf(name: string): string {
  return name.slice(0, name.lastIndexOf("."));
}

function shortName(name: string): string {
  return name.slice(name.lastIndexOf(".") + 1);
}

/** `appsv1`, `rbacv1`, `corev1`, `metav1`: the namespace a module's types are imported as. */
function moduleAlias(module: string): string {
  const [group = "", version = ""] = module.split("/");
  return `${group.split(".")[0]?.replace(/\W/g, "")}${version}`;
}

function sortedEntries<V>(record: Readonly<Record<string, V>>): [string, V][] {
  return Object.entries(record).sort(([a], [b]) => compareText(a, b));
}
