/**
 * @module typegen
 *
 * TypeScript types and descriptors from Kubernetes schemas. The built-in API is generated from an
 * apiserver's own OpenAPI v3 and discovery ({@link apiFiles}, behind `npm run generate:api-types`);
 * a CustomResourceDefinition's structural schema becomes a module per version
 * ({@link crdModules}, behind `kubeloop import`). Both share one schema → TypeScript emitter:
 * required and optional fields as the schema says, enums as unions of literals, int-or-string as
 * `number | string`, descriptions as TSDoc with the `x-kubernetes-*` list and map semantics.
 *
 * Generated objects are assignable to `KubeObject`: each kind's interface has a literal
 * `apiVersion` and `kind`, and kubeloop's own `ObjectMeta` as required `metadata`.
 *
 * @example
 * ```ts
 * import { apiFiles } from "kubeloop/typegen";
 *
 * const files = await apiFiles(await Client.load(), process.cwd()); // path → source
 * ```
 */
export { API_DIR, apiFiles } from "./api-files.ts";
export { generateApi } from "./builtin-api.ts";
export { type CrdDocument, type CrdModule, crdModules } from "./crd.ts";
export { readClusterCrds, readCrdFile } from "./crd-source.ts";
export { TypegenError } from "./errors.ts";
export { formatWithBiome, hasBiome } from "./format.ts";
export { type ApiSnapshot, readApiSnapshot } from "./snapshot.ts";
