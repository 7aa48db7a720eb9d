/**
 * What the release engine's operations return: {@link dev.capstan.release.result.CastResult} (the
 * recorded revision, the plan that was cast and how a failed cast was reverted), {@link
 * dev.capstan.release.result.DetachedCast} (a cast that goes on in the background) and {@link
 * dev.capstan.release.result.UninstallResult}.
 */
@NullMarked
package dev.capstan.release.result;

import org.jspecify.annotations.NullMarked;
