/**
 * The release engine behind {@code dev.capstan.release.ReleaseController}: one class per operation
 * ({@link CastOperation}, {@link RollbackOperation}, {@link UninstallOperation}, {@link
 * HistoryReads}), the value a prepared cast is finished from ({@link CastAttempt}) and what they
 * share ({@link EngineContext}). <b>Not API</b>: internal to release-core, public only so that the
 * controller can call it across packages; hosts use {@code ReleaseController}, and anything here
 * may change without notice.
 */
@NullMarked
package dev.capstan.release.engine;

import org.jspecify.annotations.NullMarked;
