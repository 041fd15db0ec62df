/**
 * The descriptor of every built-in kind of kube-apiserver v1.36.3, re-exported under its kind's
 * name by its group/version's module and by `preferred.ts`. Do not edit: run `npm run generate:api-types`.
 */
import type * as admissionregistrationv1 from "./admissionregistration.k8s.io/v1.ts";
import type * as apiextensionsv1 from "./apiextensions.k8s.io/v1.ts";
import type * as apiregistrationv1 from "./apiregistration.k8s.io/v1.ts";
import type * as appsv1 from "./apps/v1.ts";
import type * as authenticationv1 from "./authentication.k8s.io/v1.ts";
import type * as authorizationv1 from "./authorization.k8s.io/v1.ts";
import type * as autoscalingv1 from "./autoscaling/v1.ts";
import type * as autoscalingv2 from "./autoscaling/v2.ts";
import type * as batchv1 from "./batch/v1.ts";
import type * as certificatesv1 from "./certificates.k8s.io/v1.ts";
import type * as coordinationv1 from "./coordination.k8s.io/v1.ts";
import type * as corev1 from "./core/v1.ts";
import type * as discoveryv1 from "./discovery.k8s.io/v1.ts";
import type * as eventsv1 from "./events.k8s.io/v1.ts";
import type * as flowcontrolv1 from "./flowcontrol.apiserver.k8s.io/v1.ts";
import { resourceType } from "./meta.ts";
import type * as networkingv1 from "./networking.k8s.io/v1.ts";
import type * as nodev1 from "./node.k8s.io/v1.ts";
import type * as policyv1 from "./policy/v1.ts";
import type * as rbacv1 from "./rbac.authorization.k8s.io/v1.ts";
import type * as resourcev1 from "./resource.k8s.io/v1.ts";
import type * as schedulingv1 from "./scheduling.k8s.io/v1.ts";
import type * as storagev1 from "./storage.k8s.io/v1.ts";

/** The MutatingAdmissionPolicy kind of admissionregistration.k8s.io/v1: resource `mutatingadmissionpolicies`, cluster-scoped. */
export const admissionregistrationv1_MutatingAdmissionPolicy =
  resourceType<admissionregistrationv1.MutatingAdmissionPolicyObject>(
    "admissionregistration.k8s.io/v1",
    "MutatingAdmissionPolicy",
    "mutatingadmissionpolicies",
    false,
  );

/** The MutatingAdmissionPolicyBinding kind of admissionregistration.k8s.io/v1: resource `mutatingadmissionpolicybindings`, cluster-scoped. */
export const admissionregistrationv1_MutatingAdmissionPolicyBinding =
  resourceType<admissionregistrationv1.MutatingAdmissionPolicyBindingObject>(
    "admissionregistration.k8s.io/v1",
    "MutatingAdmissionPolicyBinding",
    "mutatingadmissionpolicybindings",
    false,
  );

/** The MutatingWebhookConfiguration kind of admissionregistration.k8s.io/v1: resource `mutatingwebhookconfigurations`, cluster-scoped. */
export const admissionregistrationv1_MutatingWebhookConfiguration =
  resourceType<admissionregistrationv1.MutatingWebhookConfigurationObject>(
    "admissionregistration.k8s.io/v1",
    "MutatingWebhookConfiguration",
    "mutatingwebhookconfigurations",
    false,
  );

/** The ValidatingAdmissionPolicy kind of admissionregistration.k8s.io/v1: resource `validatingadmissionpolicies`, cluster-scoped; subresources `status`. */
export const admissionregistrationv1_ValidatingAdmissionPolicy =
  resourceType<admissionregistrationv1.ValidatingAdmissionPolicyObject>(
    "admissionregistration.k8s.io/v1",
    "ValidatingAdmissionPolicy",
    "validatingadmissionpolicies",
    false,
    ["status"],
  );

/** The ValidatingAdmissionPolicyBinding kind of admissionregistration.k8s.io/v1: resource `validatingadmissionpolicybindings`, cluster-scoped. */
export const admissionregistrationv1_ValidatingAdmissionPolicyBinding =
  resourceType<admissionregistrationv1.ValidatingAdmissionPolicyBindingObject>(
    "admissionregistration.k8s.io/v1",
    "ValidatingAdmissionPolicyBinding",
    "validatingadmissionpolicybindings",
    false,
  );

/** The ValidatingWebhookConfiguration kind of admissionregistration.k8s.io/v1: resource `validatingwebhookconfigurations`, cluster-scoped. */
export const admissionregistrationv1_ValidatingWebhookConfiguration =
  resourceType<admissionregistrationv1.ValidatingWebhookConfigurationObject>(
    "admissionregistration.k8s.io/v1",
    "ValidatingWebhookConfiguration",
    "validatingwebhookconfigurations",
    false,
  );

/** The CustomResourceDefinition kind of apiextensions.k8s.io/v1: resource `customresourcedefinitions`, cluster-scoped; subresources `status`. */
export const apiextensionsv1_CustomResourceDefinition =
  resourceType<apiextensionsv1.CustomResourceDefinitionObject>(
    "apiextensions.k8s.io/v1",
    "CustomResourceDefinition",
    "customresourcedefinitions",
    false,
    ["status"],
  );

/** The APIService kind of apiregistration.k8s.io/v1: resource `apiservices`, cluster-scoped; subresources `status`. */
export const apiregistrationv1_APIService = resourceType<apiregistrationv1.APIServiceObject>(
  "apiregistration.k8s.io/v1",
  "APIService",
  "apiservices",
  false,
  ["status"],
);

/** The ControllerRevision kind of apps/v1: resource `controllerrevisions`, namespaced. */
export const appsv1_ControllerRevision = resourceType<appsv1.ControllerRevisionObject>(
  "apps/v1",
  "ControllerRevision",
  "controllerrevisions",
  true,
);

/** The DaemonSet kind of apps/v1: resource `daemonsets`, namespaced; subresources `status`. */
export const appsv1_DaemonSet = resourceType<appsv1.DaemonSetObject>(
  "apps/v1",
  "DaemonSet",
  "daemonsets",
  true,
  ["status"],
);

/** The Deployment kind of apps/v1: resource `deployments`, namespaced; subresources `scale`, `status`. */
export const appsv1_Deployment = resourceType<appsv1.DeploymentObject>(
  "apps/v1",
  "Deployment",
  "deployments",
  true,
  ["scale", "status"],
);

/** The ReplicaSet kind of apps/v1: resource `replicasets`, namespaced; subresources `scale`, `status`. */
export const appsv1_ReplicaSet = resourceType<appsv1.ReplicaSetObject>(
  "apps/v1",
  "ReplicaSet",
  "replicasets",
  true,
  ["scale", "status"],
);

/** The StatefulSet kind of apps/v1: resource `statefulsets`, namespaced; subresources `scale`, `status`. */
export const appsv1_StatefulSet = resourceType<appsv1.StatefulSetObject>(
  "apps/v1",
  "StatefulSet",
  "statefulsets",
  true,
  ["scale", "status"],
);

/** The SelfSubjectReview kind of authentication.k8s.io/v1: resource `selfsubjectreviews`, cluster-scoped. */
export const authenticationv1_SelfSubjectReview = resourceType<authenticationv1.SelfSubjectReviewObject>(
  "authentication.k8s.io/v1",
  "SelfSubjectReview",
  "selfsubjectreviews",
  false,
);

/** The TokenReview kind of authentication.k8s.io/v1: resource `tokenreviews`, cluster-scoped. */
export const authenticationv1_TokenReview = resourceType<authenticationv1.TokenReviewObject>(
  "authentication.k8s.io/v1",
  "TokenReview",
  "tokenreviews",
  false,
);

/** The LocalSubjectAccessReview kind of authorization.k8s.io/v1: resource `localsubjectaccessreviews`, namespaced. */
export const authorizationv1_LocalSubjectAccessReview =
  resourceType<authorizationv1.LocalSubjectAccessReviewObject>(
    "authorization.k8s.io/v1",
    "LocalSubjectAccessReview",
    "localsubjectaccessreviews",
    true,
  );

/** The SelfSubjectAccessReview kind of authorization.k8s.io/v1: resource `selfsubjectaccessreviews`, cluster-scoped. */
export const authorizationv1_SelfSubjectAccessReview =
  resourceType<authorizationv1.SelfSubjectAccessReviewObject>(
    "authorization.k8s.io/v1",
    "SelfSubjectAccessReview",
    "selfsubjectaccessreviews",
    false,
  );

/** The SelfSubjectRulesReview kind of authorization.k8s.io/v1: resource `selfsubjectrulesreviews`, cluster-scoped. */
export const authorizationv1_SelfSubjectRulesReview =
  resourceType<authorizationv1.SelfSubjectRulesReviewObject>(
    "authorization.k8s.io/v1",
    "SelfSubjectRulesReview",
    "selfsubjectrulesreviews",
    false,
  );

/** The SubjectAccessReview kind of authorization.k8s.io/v1: resource `subjectaccessreviews`, cluster-scoped. */
export const authorizationv1_SubjectAccessReview = resourceType<authorizationv1.SubjectAccessReviewObject>(
  "authorization.k8s.io/v1",
  "SubjectAccessReview",
  "subjectaccessreviews",
  false,
);

/** The HorizontalPodAutoscaler kind of autoscaling/v1: resource `horizontalpodautoscalers`, namespaced; subresources `status`. */
export const autoscalingv1_HorizontalPodAutoscaler =
  resourceType<autoscalingv1.HorizontalPodAutoscalerObject>(
    "autoscaling/v1",
    "HorizontalPodAutoscaler",
    "horizontalpodautoscalers",
    true,
    ["status"],
  );

/** The HorizontalPodAutoscaler kind of autoscaling/v2: resource `horizontalpodautoscalers`, namespaced; subresources `status`. */
export const autoscalingv2_HorizontalPodAutoscaler =
  resourceType<autoscalingv2.HorizontalPodAutoscalerObject>(
    "autoscaling/v2",
    "HorizontalPodAutoscaler",
    "horizontalpodautoscalers",
    true,
    ["status"],
  );

/** The CronJob kind of batch/v1: resource `cronjobs`, namespaced; subresources `status`. */
export const batchv1_CronJob = resourceType<batchv1.CronJobObject>("batch/v1", "CronJob", "cronjobs", true, [
  "status",
]);

/** The Job kind of batch/v1: resource `jobs`, namespaced; subresources `status`. */
export const batchv1_Job = resourceType<batchv1.JobObject>("batch/v1", "Job", "jobs", true, ["status"]);

/** The CertificateSigningRequest kind of certificates.k8s.io/v1: resource `certificatesigningrequests`, cluster-scoped; subresources `approval`, `status`. */
export const certificatesv1_CertificateSigningRequest =
  resourceType<certificatesv1.CertificateSigningRequestObject>(
    "certificates.k8s.io/v1",
    "CertificateSigningRequest",
    "certificatesigningrequests",
    false,
    ["approval", "status"],
  );

/** The Lease kind of coordination.k8s.io/v1: resource `leases`, namespaced. */
export const coordinationv1_Lease = resourceType<coordinationv1.LeaseObject>(
  "coordination.k8s.io/v1",
  "Lease",
  "leases",
  true,
);

/** The Binding kind of v1: resource `bindings`, namespaced. */
export const corev1_Binding = resourceType<corev1.BindingObject>("v1", "Binding", "bindings", true);

/** The ComponentStatus kind of v1: resource `componentstatuses`, cluster-scoped. */
export const corev1_ComponentStatus = resourceType<corev1.ComponentStatusObject>(
  "v1",
  "ComponentStatus",
  "componentstatuses",
  false,
);

/** The ConfigMap kind of v1: resource `configmaps`, namespaced. */
export const corev1_ConfigMap = resourceType<corev1.ConfigMapObject>("v1", "ConfigMap", "configmaps", true);

/** The Endpoints kind of v1: resource `endpoints`, namespaced. */
export const corev1_Endpoints = resourceType<corev1.EndpointsObject>("v1", "Endpoints", "endpoints", true);

/** The Event kind of v1: resource `events`, namespaced. */
export const corev1_Event = resourceType<corev1.EventObject>("v1", "Event", "events", true);

/** The LimitRange kind of v1: resource `limitranges`, namespaced. */
export const corev1_LimitRange = resourceType<corev1.LimitRangeObject>(
  "v1",
  "LimitRange",
  "limitranges",
  true,
);

/** The Namespace kind of v1: resource `namespaces`, cluster-scoped; subresources `finalize`, `status`. */
export const corev1_Namespace = resourceType<corev1.NamespaceObject>("v1", "Namespace", "namespaces", false, [
  "finalize",
  "status",
]);

/** The Node kind of v1: resource `nodes`, cluster-scoped; subresources `proxy`, `status`. */
export const corev1_Node = resourceType<corev1.NodeObject>("v1", "Node", "nodes", false, ["proxy", "status"]);

/** The PersistentVolume kind of v1: resource `persistentvolumes`, cluster-scoped; subresources `status`. */
export const corev1_PersistentVolume = resourceType<corev1.PersistentVolumeObject>(
  "v1",
  "PersistentVolume",
  "persistentvolumes",
  false,
  ["status"],
);

/** The PersistentVolumeClaim kind of v1: resource `persistentvolumeclaims`, namespaced; subresources `status`. */
export const corev1_PersistentVolumeClaim = resourceType<corev1.PersistentVolumeClaimObject>(
  "v1",
  "PersistentVolumeClaim",
  "persistentvolumeclaims",
  true,
  ["status"],
);

/** The Pod kind of v1: resource `pods`, namespaced; subresources `attach`, `binding`, `ephemeralcontainers`, `eviction`, `exec`, `log`, `portforward`, `proxy`, `resize`, `status`. */
export const corev1_Pod = resourceType<corev1.PodObject>("v1", "Pod", "pods", true, [
  "attach",
  "binding",
  "ephemeralcontainers",
  "eviction",
  "exec",
  "log",
  "portforward",
  "proxy",
  "resize",
  "status",
]);

/** The PodTemplate kind of v1: resource `podtemplates`, namespaced. */
export const corev1_PodTemplate = resourceType<corev1.PodTemplateObject>(
  "v1",
  "PodTemplate",
  "podtemplates",
  true,
);

/** The ReplicationController kind of v1: resource `replicationcontrollers`, namespaced; subresources `scale`, `status`. */
export const corev1_ReplicationController = resourceType<corev1.ReplicationControllerObject>(
  "v1",
  "ReplicationController",
  "replicationcontrollers",
  true,
  ["scale", "status"],
);

/** The ResourceQuota kind of v1: resource `resourcequotas`, namespaced; subresources `status`. */
export const corev1_ResourceQuota = resourceType<corev1.ResourceQuotaObject>(
  "v1",
  "ResourceQuota",
  "resourcequotas",
  true,
  ["status"],
);

/** The Secret kind of v1: resource `secrets`, namespaced. */
export const corev1_Secret = resourceType<corev1.SecretObject>("v1", "Secret", "secrets", true);

/** The Service kind of v1: resource `services`, namespaced; subresources `proxy`, `status`. */
export const corev1_Service = resourceType<corev1.ServiceObject>("v1", "Service", "services", true, [
  "proxy",
  "status",
]);

/** The ServiceAccount kind of v1: resource `serviceaccounts`, namespaced; subresources `token`. */
export const corev1_ServiceAccount = resourceType<corev1.ServiceAccountObject>(
  "v1",
  "ServiceAccount",
  "serviceaccounts",
  true,
  ["token"],
);

/** The EndpointSlice kind of discovery.k8s.io/v1: resource `endpointslices`, namespaced. */
export const discoveryv1_EndpointSlice = resourceType<discoveryv1.EndpointSliceObject>(
  "discovery.k8s.io/v1",
  "EndpointSlice",
  "endpointslices",
  true,
);

/** The Event kind of events.k8s.io/v1: resource `events`, namespaced. */
export const eventsv1_Event = resourceType<eventsv1.EventObject>("events.k8s.io/v1", "Event", "events", true);

/** The FlowSchema kind of flowcontrol.apiserver.k8s.io/v1: resource `flowschemas`, cluster-scoped; subresources `status`. */
export const flowcontrolv1_FlowSchema = resourceType<flowcontrolv1.FlowSchemaObject>(
  "flowcontrol.apiserver.k8s.io/v1",
  "FlowSchema",
  "flowschemas",
  false,
  ["status"],
);

/** The PriorityLevelConfiguration kind of flowcontrol.apiserver.k8s.io/v1: resource `prioritylevelconfigurations`, cluster-scoped; subresources `status`. */
export const flowcontrolv1_PriorityLevelConfiguration =
  resourceType<flowcontrolv1.PriorityLevelConfigurationObject>(
    "flowcontrol.apiserver.k8s.io/v1",
    "PriorityLevelConfiguration",
    "prioritylevelconfigurations",
    false,
    ["status"],
  );

/** The IPAddress kind of networking.k8s.io/v1: resource `ipaddresses`, cluster-scoped. */
export const networkingv1_IPAddress = resourceType<networkingv1.IPAddressObject>(
  "networking.k8s.io/v1",
  "IPAddress",
  "ipaddresses",
  false,
);

/** The Ingress kind of networking.k8s.io/v1: resource `ingresses`, namespaced; subresources `status`. */
export const networkingv1_Ingress = resourceType<networkingv1.IngressObject>(
  "networking.k8s.io/v1",
  "Ingress",
  "ingresses",
  true,
  ["status"],
);

/** The IngressClass kind of networking.k8s.io/v1: resource `ingressclasses`, cluster-scoped. */
export const networkingv1_IngressClass = resourceType<networkingv1.IngressClassObject>(
  "networking.k8s.io/v1",
  "IngressClass",
  "ingressclasses",
  false,
);

/** The NetworkPolicy kind of networking.k8s.io/v1: resource `networkpolicies`, namespaced. */
export const networkingv1_NetworkPolicy = resourceType<networkingv1.NetworkPolicyObject>(
  "networking.k8s.io/v1",
  "NetworkPolicy",
  "networkpolicies",
  true,
);

/** The ServiceCIDR kind of networking.k8s.io/v1: resource `servicecidrs`, cluster-scoped; subresources `status`. */
export const networkingv1_ServiceCIDR = resourceType<networkingv1.ServiceCIDRObject>(
  "networking.k8s.io/v1",
  "ServiceCIDR",
  "servicecidrs",
  false,
  ["status"],
);

/** The RuntimeClass kind of node.k8s.io/v1: resource `runtimeclasses`, cluster-scoped. */
export const nodev1_RuntimeClass = resourceType<nodev1.RuntimeClassObject>(
  "node.k8s.io/v1",
  "RuntimeClass",
  "runtimeclasses",
  false,
);

/** The PodDisruptionBudget kind of policy/v1: resource `poddisruptionbudgets`, namespaced; subresources `status`. */
export const policyv1_PodDisruptionBudget = resourceType<policyv1.PodDisruptionBudgetObject>(
  "policy/v1",
  "PodDisruptionBudget",
  "poddisruptionbudgets",
  true,
  ["status"],
);

/** The ClusterRole kind of rbac.authorization.k8s.io/v1: resource `clusterroles`, cluster-scoped. */
export const rbacv1_ClusterRole = resourceType<rbacv1.ClusterRoleObject>(
  "rbac.authorization.k8s.io/v1",
  "ClusterRole",
  "clusterroles",
  false,
);

/** The ClusterRoleBinding kind of rbac.authorization.k8s.io/v1: resource `clusterrolebindings`, cluster-scoped. */
export const rbacv1_ClusterRoleBinding = resourceType<rbacv1.ClusterRoleBindingObject>(
  "rbac.authorization.k8s.io/v1",
  "ClusterRoleBinding",
  "clusterrolebindings",
  false,
);

/** The Role kind of rbac.authorization.k8s.io/v1: resource `roles`, namespaced. */
export const rbacv1_Role = resourceType<rbacv1.RoleObject>(
  "rbac.authorization.k8s.io/v1",
  "Role",
  "roles",
  true,
);

/** The RoleBinding kind of rbac.authorization.k8s.io/v1: resource `rolebindings`, namespaced. */
export const rbacv1_RoleBinding = resourceType<rbacv1.RoleBindingObject>(
  "rbac.authorization.k8s.io/v1",
  "RoleBinding",
  "rolebindings",
  true,
);

/** The DeviceClass kind of resource.k8s.io/v1: resource `deviceclasses`, cluster-scoped. */
export const resourcev1_DeviceClass = resourceType<resourcev1.DeviceClassObject>(
  "resource.k8s.io/v1",
  "DeviceClass",
  "deviceclasses",
  false,
);

/** The ResourceClaim kind of resource.k8s.io/v1: resource `resourceclaims`, namespaced; subresources `status`. */
export const resourcev1_ResourceClaim = resourceType<resourcev1.ResourceClaimObject>(
  "resource.k8s.io/v1",
  "ResourceClaim",
  "resourceclaims",
  true,
  ["status"],
);

/** The ResourceClaimTemplate kind of resource.k8s.io/v1: resource `resourceclaimtemplates`, namespaced. */
export const resourcev1_ResourceClaimTemplate = resourceType<resourcev1.ResourceClaimTemplateObject>(
  "resource.k8s.io/v1",
  "ResourceClaimTemplate",
  "resourceclaimtemplates",
  true,
);

/** The ResourceSlice kind of resource.k8s.io/v1: resource `resourceslices`, cluster-scoped. */
export const resourcev1_ResourceSlice = resourceType<resourcev1.ResourceSliceObject>(
  "resource.k8s.io/v1",
  "ResourceSlice",
  "resourceslices",
  false,
);

/** The PriorityClass kind of scheduling.k8s.io/v1: resource `priorityclasses`, cluster-scoped. */
export const schedulingv1_PriorityClass = resourceType<schedulingv1.PriorityClassObject>(
  "scheduling.k8s.io/v1",
  "PriorityClass",
  "priorityclasses",
  false,
);

/** The CSIDriver kind of storage.k8s.io/v1: resource `csidrivers`, cluster-scoped. */
export const storagev1_CSIDriver = resourceType<storagev1.CSIDriverObject>(
  "storage.k8s.io/v1",
  "CSIDriver",
  "csidrivers",
  false,
);

/** The CSINode kind of storage.k8s.io/v1: resource `csinodes`, cluster-scoped. */
export const storagev1_CSINode = resourceType<storagev1.CSINodeObject>(
  "storage.k8s.io/v1",
  "CSINode",
  "csinodes",
  false,
);

/** The CSIStorageCapacity kind of storage.k8s.io/v1: resource `csistoragecapacities`, namespaced. */
export const storagev1_CSIStorageCapacity = resourceType<storagev1.CSIStorageCapacityObject>(
  "storage.k8s.io/v1",
  "CSIStorageCapacity",
  "csistoragecapacities",
  true,
);

/** The StorageClass kind of storage.k8s.io/v1: resource `storageclasses`, cluster-scoped. */
export const storagev1_StorageClass = resourceType<storagev1.StorageClassObject>(
  "storage.k8s.io/v1",
  "StorageClass",
  "storageclasses",
  false,
);

/** The VolumeAttachment kind of storage.k8s.io/v1: resource `volumeattachments`, cluster-scoped; subresources `status`. */
export const storagev1_VolumeAttachment = resourceType<storagev1.VolumeAttachmentObject>(
  "storage.k8s.io/v1",
  "VolumeAttachment",
  "volumeattachments",
  false,
  ["status"],
);

/** The VolumeAttributesClass kind of storage.k8s.io/v1: resource `volumeattributesclasses`, cluster-scoped. */
export const storagev1_VolumeAttributesClass = resourceType<storagev1.VolumeAttributesClassObject>(
  "storage.k8s.io/v1",
  "VolumeAttributesClass",
  "volumeattributesclasses",
  false,
);
