/**
 * The health of one wait, over time. The verdict on each object is {@link
 * dev.capstan.common.health.HealthRules}' (capstan-common, the one home of the health rules,
 * kstatus semantics); {@link dev.capstan.release.health.WaveHealth} holds what only time can tell:
 * verdicts kept once current, deleted objects judged by their last state, an APIService's unchanged
 * condition failed after its patience, and when progress is due. Watching the objects and their
 * pods is the adapter's job; this class only judges what it saw, and when.
 */
@NullMarked
package dev.capstan.release.health;

import org.jspecify.annotations.NullMarked;
