/**
 * The one home of Capstan's health rules: the health of any Kubernetes object, as pure functions of
 * its tree (nested maps and lists as parsed from JSON or YAML), with the semantics of kstatus, the
 * library Helm 4 and Flux wait with. Release casts, the Kubernetes adapters and platform updates
 * all judge with these rules; none keeps a copy.
 *
 * <p>A verdict ({@link dev.capstan.common.health.Health}) is current (ready), in progress (not
 * ready yet; waiting may cure it) or failed (waiting will not cure it), with a short reason that
 * names the object ({@code Deployment shop/web: 1 of 3 updated replicas are available}) and shows
 * every value taken from the object escaped. {@link dev.capstan.common.health.HealthRules} holds
 * the rules: the generic ones (observed generation, the Stalled, Reconciling, Ready and Available
 * conditions; no status means ready when applied), one rule per built-in kind with a status of its
 * own, and a pod-level diagnosis: {@link dev.capstan.common.health.PodFailure} fails a workload at
 * once when one of its pods cannot become ready, {@link dev.capstan.common.health.PodPending} names
 * a pod the scheduler holds back in its in-progress verdict (waiting may cure that). The steps of a
 * Deployment's rollout ({@link dev.capstan.common.health.DeploymentRollout}) and the condition
 * lookup ({@link dev.capstan.common.health.Condition}) are public on their own, for the platform
 * update's rollout wait, which words its verdicts as {@code kubectl rollout status} does.
 *
 * <p>What only time can tell, over one wait, is release-core's {@code WaveHealth}; watching the
 * objects and their pods is the adapter's job. These classes only judge what it saw.
 */
@NullMarked
package dev.capstan.common.health;

import org.jspecify.annotations.NullMarked;
