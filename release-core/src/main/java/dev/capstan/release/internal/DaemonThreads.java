package dev.capstan.release.internal;

import java.util.concurrent.ThreadFactory;

/** Thread factories for the engine's helper threads. Not API. */
public final class DaemonThreads {
  private DaemonThreads() {}

  /** Daemon threads named {@code name}: they never keep a host application's JVM alive. */
  public static ThreadFactory named(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }
}
