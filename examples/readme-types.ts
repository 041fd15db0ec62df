// #region readme-types
import { CronJob, type CronJobObject } from "kubeloop/api"; // batch/v1, the preferred version
import { HorizontalPodAutoscaler } from "kubeloop/api/autoscaling/v1";
import type { Container, PodSpec } from "kubeloop/api/core/v1";
import type { LabelSelector, Quantity } from "kubeloop/api/meta/v1";
// #endregion

export type Used = [CronJobObject, Container, PodSpec, LabelSelector, Quantity];
console.log(CronJob.plural, HorizontalPodAutoscaler.apiVersion);
