/**
 * What `kubeloop generate` can tell from an operator's declarations alone may be missing from
 * them. It cannot see what reconcilers do: an `ensureChild`, cached read or client call on a kind
 * no controller declares shows only when it runs (the manager then warns, once per kind). So it
 * points at the two gaps the declarations do show: a controller that declares nothing besides its
 * primary kind while the operator lists no extra `permissions` (its reconciler then may write only
 * the primary kind and its status), and a kind the operator ships a CRD for that nothing declares
 * (the RBAC does not even let the operator read it). It also says what the declarations grant
 * more than may be meant (a `.watches()` reading a kind in every namespace), and names the
 * refinements of the kinds' specs (`.refine()`), which the CRDs cannot carry: only the controller
 * checks them.
 */
import { resourceOf } from "../api/index.ts";
import type { ControllerDeclaration, PermissionTarget } from "../controller/index.ts";
import type { Operator } from "../operator/index.ts";
import type { AnyKind } from "../schema/index.ts";
import { declarationsOf } from "./operator.ts";

/**
 * Warnings about what the operator's declarations may be missing, one sentence (cause and fix)
 * each; empty when nothing looks amiss.
 *
 * @example
 * ```ts
 * for (const warning of await declarationWarnings(operator)) console.warn(`warning: ${warning}`);
 * ```
 */
export async function declarationWarnings(operator: Operator): Promise<string[]> {
  const declarations = await declarationsOf(operator);
  const permitted = (operator.definition.permissions ?? []).map((p) => p.type);
  const declared = new Set([...declarations.flatMap(kindsOf), ...permitted].map((type) => resourceOf(type)));
  const bare = permitted.length === 0 ? declarations.filter(declaresNoOtherKind) : [];
  const clusterWide = operator.definition.watchNamespace === undefined;
  return [
    ...bare.map(bareControllerWarning),
    ...operator.kinds.filter((kind) => !declared.has(resourceOf(kind))).map(unusedKindWarning),
    ...(clusterWide ? clusterWideWatchWarning(declarations, operator.kinds) : []),
    ...operator.kinds.filter((kind) => kind.refinements.length > 0).map(refinementsWarning),
  ];
}

/**
 * The `.watches()` of namespaced kinds without a namespace: their informers list the kinds in
 * every namespace, so the generated ClusterRole grants reading all of them (every Secret, for
 * `.watches(Secret)`). Not said of kinds some controller reconciles or owns, nor of the operator's
 * own kinds: reading those wherever its objects are is what it is for. One sentence for them all.
 */
function clusterWideWatchWarning(
  declarations: readonly ControllerDeclaration[],
  own: readonly AnyKind[],
): string[] {
  const served = declarations.flatMap((d) => [d.primary, ...d.owns]).map((kind) => kind.type);
  const granted = new Set([...served, ...own].map((type) => resourceOf(type)));
  const watchers = new Map<string, string[]>();
  for (const { name, watches } of declarations)
    for (const { type, scope } of watches)
      if (type.namespaced && scope?.namespace === undefined && !granted.has(resourceOf(type)))
        watchers.set(type.kind, [...new Set([...(watchers.get(type.kind) ?? []), name])]);
  if (watchers.size === 0) return [];
  const kinds = [...watchers].map(([kind, names]) => `.watches(${kind}) (controller ${names.join(", ")})`);
  return [
    `${kinds.join(", ")} let the operator read every such object of the cluster (get, list, watch in the ` +
      "generated ClusterRole). To read a kind in one namespace only, watch it there: .watches(Kind, map, " +
      '{ scope: { namespace: "<namespace>" } }) (generate then grants it in a Role of that namespace), or ' +
      "confine the whole operator with defineOperator({ watchNamespace }).",
  ];
}

function kindsOf(declaration: ControllerDeclaration): PermissionTarget[] {
  return [declaration.primary, ...declaration.owns, ...declaration.watches].map((kind) => kind.type);
}

function declaresNoOtherKind(declaration: ControllerDeclaration): boolean {
  return declaration.owns.length === 0 && declaration.watches.length === 0;
}

function bareControllerWarning({ name, primary }: ControllerDeclaration): string {
  const kind = primary.type.kind;
  return (
    `controller ${name} declares no .owns() or .watches() besides ${kind}, and the operator no permissions: ` +
    `the generated RBAC lets it write only ${kind} and its status. If its reconciler creates children ` +
    "(ensureChild) or reads other kinds, declare them with .owns(Kind) or .watches(Kind, map), or in the " +
    "operator's permissions, then generate again (the manager also warns, once per kind, when it runs)."
  );
}

function unusedKindWarning(kind: AnyKind): string {
  return (
    `kind ${kind.kind} (${kind.group}) ships a CRD, but no controller reconciles, owns or watches it and the ` +
    `operator's permissions do not list it, so the generated RBAC does not let the operator read it. Add a ` +
    `controller for it, .owns(${kind.kind}) or .watches(${kind.kind}, map), or list it in permissions.`
  );
}

function refinementsWarning({ kind, refinements }: AnyKind): string {
  return (
    `kind ${kind}: the refinements (.refine(), .superRefine()) at ${refinements.join(", ")} cannot become part ` +
    "of its CRD, so the apiserver admits objects that fail them; the controller checks them before each " +
    "reconcile (condition reason SpecInvalid, the reconciler not called). To reject such objects at the " +
    "apiserver, write the check as a CEL rule (withRules(field, { rule, message }) from kubeloop/schema) or " +
    "in a validating webhook."
  );
}
