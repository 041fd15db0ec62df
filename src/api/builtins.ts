/**
 * Descriptors and (deliberately partial) types of the built-in kinds kubeloop and its operators
 * use. Fields not listed are still kept at run time; the types name what code commonly reads.
 */
import { type KubeObject, type ObjectMeta, resourceType } from "./meta.ts";

/** A label selector (metav1.LabelSelector). */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: {
    key: string;
    operator: "In" | "NotIn" | "Exists" | "DoesNotExist";
    values?: string[];
  }[];
}

/** A condition as built-in kinds report it (Pods, Jobs, Deployments, Nodes). */
export interface BuiltinCondition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

/** A container in a pod template. */
export interface Container {
  name: string;
  image?: string;
  args?: string[];
  command?: string[];
  env?: { name: string; value?: string; valueFrom?: Record<string, unknown> }[];
  ports?: { containerPort: number; name?: string; protocol?: string }[];
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean; subPath?: string }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  [field: string]: unknown;
}

/** A pod spec (the fields kubeloop's operators and tests touch). */
export interface PodSpec {
  containers: Container[];
  restartPolicy?: "Always" | "OnFailure" | "Never";
  volumes?: {
    name: string;
    configMap?: { name: string; items?: { key: string; path: string }[] };
    [k: string]: unknown;
  }[];
  nodeName?: string;
  serviceAccountName?: string;
  [field: string]: unknown;
}

/** A pod template. */
export interface PodTemplateSpec {
  metadata?: ObjectMeta;
  spec: PodSpec;
}

export interface NamespaceObject extends KubeObject {
  status?: { phase?: string };
}
export interface ConfigMapObject extends KubeObject {
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
  immutable?: boolean;
}
export interface SecretObject extends KubeObject {
  type?: string;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}
export interface ServiceAccountObject extends KubeObject {
  /** Whether pods running as this account get an API token mounted (default true). */
  automountServiceAccountToken?: boolean;
  /** Secrets pods running as this account pull their images with. */
  imagePullSecrets?: { name: string }[];
}
export interface NodeObject extends KubeObject {
  spec?: { unschedulable?: boolean; taints?: unknown[] };
  status?: { conditions?: BuiltinCondition[]; allocatable?: Record<string, string> };
}
export interface PodObject extends KubeObject {
  spec: PodSpec;
  status?: {
    phase?: "Pending" | "Running" | "Succeeded" | "Failed" | "Unknown";
    conditions?: BuiltinCondition[];
    podIP?: string;
    containerStatuses?: { name: string; ready: boolean; state?: Record<string, unknown> }[];
  };
}
export interface ServiceObject extends KubeObject {
  spec?: {
    selector?: Record<string, string>;
    ports?: { port: number; targetPort?: number | string; name?: string }[];
  };
}
export interface JobObject extends KubeObject {
  spec: {
    parallelism?: number;
    completions?: number;
    completionMode?: "NonIndexed" | "Indexed";
    backoffLimit?: number;
    backoffLimitPerIndex?: number;
    maxFailedIndexes?: number;
    podFailurePolicy?: unknown;
    activeDeadlineSeconds?: number;
    ttlSecondsAfterFinished?: number;
    selector?: LabelSelector;
    template: PodTemplateSpec;
    [field: string]: unknown;
  };
  status?: {
    active?: number;
    succeeded?: number;
    failed?: number;
    ready?: number;
    startTime?: string;
    completionTime?: string;
    completedIndexes?: string;
    failedIndexes?: string;
    conditions?: BuiltinCondition[];
  };
}
export interface DeploymentObject extends KubeObject {
  spec: {
    replicas?: number;
    selector: LabelSelector;
    template: PodTemplateSpec;
    [field: string]: unknown;
  };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    updatedReplicas?: number;
    unavailableReplicas?: number;
    conditions?: BuiltinCondition[];
  };
}
export interface LeaseObject extends KubeObject {
  spec?: {
    holderIdentity?: string | null;
    leaseDurationSeconds?: number;
    acquireTime?: string | null;
    renewTime?: string | null;
    leaseTransitions?: number;
  };
}
/** events.k8s.io/v1 Event. */
export interface EventObject extends KubeObject {
  eventTime?: string;
  series?: { count: number; lastObservedTime: string };
  reportingController?: string;
  reportingInstance?: string;
  action?: string;
  reason?: string;
  regarding?: ObjectReference;
  related?: ObjectReference;
  note?: string;
  type?: "Normal" | "Warning";
}
/** A reference to another object (core/v1 ObjectReference). */
export interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  resourceVersion?: string;
  fieldPath?: string;
}
export interface CustomResourceDefinitionObject extends KubeObject {
  spec: {
    group: string;
    names: {
      kind: string;
      plural: string;
      singular?: string;
      listKind?: string;
      shortNames?: string[];
      categories?: string[];
    };
    scope: "Namespaced" | "Cluster";
    versions: { name: string; served: boolean; storage: boolean; [field: string]: unknown }[];
    [field: string]: unknown;
  };
  status?: { conditions?: BuiltinCondition[]; acceptedNames?: { kind?: string; plural?: string } };
}
/** An RBAC policy rule. */
export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}
/** Who a request comes from, as authentication found it (authentication.k8s.io/v1 UserInfo). */
export interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}
/** authentication.k8s.io/v1 TokenReview: asks the apiserver who a bearer token belongs to. */
export interface TokenReviewObject extends KubeObject {
  spec: { token: string; audiences?: string[] };
  status?: { authenticated?: boolean; user?: UserInfo; audiences?: string[]; error?: string };
}
/** authorization.k8s.io/v1 SubjectAccessReview: asks the apiserver whether a user may do something. */
export interface SubjectAccessReviewObject extends KubeObject {
  spec: {
    user?: string;
    uid?: string;
    groups?: string[];
    extra?: Record<string, string[]>;
    resourceAttributes?: Record<string, string>;
    nonResourceAttributes?: { path: string; verb: string };
  };
  status?: { allowed: boolean; denied?: boolean; reason?: string; evaluationError?: string };
}
export interface RoleObject extends KubeObject {
  rules?: PolicyRule[];
}
export interface RoleBindingObject extends KubeObject {
  roleRef: { apiGroup: string; kind: "Role" | "ClusterRole"; name: string };
  subjects?: { kind: string; name: string; namespace?: string; apiGroup?: string }[];
}

export const Namespace = resourceType<NamespaceObject>("v1", "Namespace", "namespaces", false);
export const ConfigMap = resourceType<ConfigMapObject>("v1", "ConfigMap", "configmaps", true);
export const Secret = resourceType<SecretObject>("v1", "Secret", "secrets", true);
export const ServiceAccount = resourceType<ServiceAccountObject>(
  "v1",
  "ServiceAccount",
  "serviceaccounts",
  true,
);
export const Node = resourceType<NodeObject>("v1", "Node", "nodes", false);
export const Pod = resourceType<PodObject>("v1", "Pod", "pods", true);
export const Service = resourceType<ServiceObject>("v1", "Service", "services", true);
export const Job = resourceType<JobObject>("batch/v1", "Job", "jobs", true);
export const Deployment = resourceType<DeploymentObject>("apps/v1", "Deployment", "deployments", true);
export const Lease = resourceType<LeaseObject>("coordination.k8s.io/v1", "Lease", "leases", true);
export const Event = resourceType<EventObject>("events.k8s.io/v1", "Event", "events", true);
export const CustomResourceDefinition = resourceType<CustomResourceDefinitionObject>(
  "apiextensions.k8s.io/v1",
  "CustomResourceDefinition",
  "customresourcedefinitions",
  false,
);
export const Role = resourceType<RoleObject>("rbac.authorization.k8s.io/v1", "Role", "roles", true);
export const ClusterRole = resourceType<RoleObject>(
  "rbac.authorization.k8s.io/v1",
  "ClusterRole",
  "clusterroles",
  false,
);
export const RoleBinding = resourceType<RoleBindingObject>(
  "rbac.authorization.k8s.io/v1",
  "RoleBinding",
  "rolebindings",
  true,
);
export const ClusterRoleBinding = resourceType<RoleBindingObject>(
  "rbac.authorization.k8s.io/v1",
  "ClusterRoleBinding",
  "clusterrolebindings",
  false,
);
/** TokenReviews are only created (`client.create(TokenReview, review)`); the answer is in `status`. */
export const TokenReview = resourceType<TokenReviewObject>(
  "authentication.k8s.io/v1",
  "TokenReview",
  "tokenreviews",
  false,
);
/** SubjectAccessReviews are only created; `status.allowed` is the answer. */
export const SubjectAccessReview = resourceType<SubjectAccessReviewObject>(
  "authorization.k8s.io/v1",
  "SubjectAccessReview",
  "subjectaccessreviews",
  false,
);
