/**
 * The Capstan daemon: a long-lived JVM that runs {@code capstan} commands sent over a Unix domain
 * socket by the launcher's small client, so a command pays neither the JVM's start-up nor a new
 * connection to the API server. Opt-in ({@code ./capstan daemon start}); one command at a time; a
 * client that goes away mid-command takes the daemon with it, exactly as a killed {@code capstan}
 * process would stop. The wire format is in {@link dev.capstan.examples.daemon.FrameChannel}.
 */
@NullMarked
package dev.capstan.examples.daemon;

import org.jspecify.annotations.NullMarked;
