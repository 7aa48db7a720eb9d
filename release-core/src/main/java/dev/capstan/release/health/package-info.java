/**
 * The health of any Kubernetes object, as pure functions of its tree (nested maps and lists as
 * parsed from JSON or YAML), with the semantics of kstatus, the library Helm 4 and Flux wait with.
 *
 * <p>A verdict ({@link dev.capstan.release.health.Health}) is current (ready), in progress (not
 * ready yet; waiting may cure it) or failed (waiting will not cure it), with a short reason that
 * names the object ({@code Deployment shop/web: 1 of 3 updated replicas are available}) and shows
 * every value taken from the object escaped. {@link dev.capstan.release.health.HealthRules} holds
 * the rules: the generic ones (observed generation, the Stalled, Reconciling, Ready and Available
 * conditions; no status means ready when applied), one rule per built-in kind with a status of its
 * own, and a pod-level diagnosis that fails a workload at once when one of its pods cannot become
 * ready. {@link dev.capstan.release.health.WaveHealth} holds what only time can tell, over one
 * wait: verdicts kept once current, deleted objects judged by their last state, an APIService's
 * unchanged condition failed after its patience, and when progress is due. Watching the objects and
 * their pods is the adapter's job; these classes only judge what it saw, and when.
 */
@NullMarked
package dev.capstan.release.health;

import org.jspecify.annotations.NullMarked;
