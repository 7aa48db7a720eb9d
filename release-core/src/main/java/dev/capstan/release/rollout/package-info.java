/**
 * Config rollouts: {@link dev.capstan.release.rollout.ConfigRollout} is a pure transform of a
 * release's rendered objects, applied by the controller before hashing and planning, that gives the
 * pod template of every workload reading a ConfigMap or Secret of the same release an annotation
 * over those inputs' content hashes, so a config change restarts its readers in the same cast.
 */
@NullMarked
package dev.capstan.release.rollout;

import org.jspecify.annotations.NullMarked;
