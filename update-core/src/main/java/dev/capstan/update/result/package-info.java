/**
 * What an applied update returns: {@link dev.capstan.update.result.UpdateResult} (the CRDs applied
 * and each workload's {@link dev.capstan.update.result.WorkloadResult}, with its {@link
 * dev.capstan.update.result.WorkloadStatus}: rolled out, rolled back, failed, untouched).
 */
@NullMarked
package dev.capstan.update.result;

import org.jspecify.annotations.NullMarked;
