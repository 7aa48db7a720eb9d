/**
 * The Capstan daemon: a long-lived JVM that runs {@code capstan} commands sent over a Unix domain
 * socket by the launcher's small client, so a command pays neither the JVM's start-up nor a new
 * connection to the API server. One per user and build of the jar, private to the user: the
 * launcher starts it beside a build's first command (not under {@code CI=true}, {@code --no-daemon}
 * or {@code CAPSTAN_DAEMON=false}; or by hand, {@code ./capstan daemon start [--jobs N]}) and it
 * stops when idle; up to N commands at once (default 8), more run in JVMs of their own; a client
 * that goes away mid-command stops that command alone, before its next write, and the others go on
 * (see {@link dev.capstan.cli.daemon.Daemon}). The wire format is in {@link
 * dev.capstan.cli.daemon.FrameChannel}.
 */
@NullMarked
package dev.capstan.cli.daemon;

import org.jspecify.annotations.NullMarked;
