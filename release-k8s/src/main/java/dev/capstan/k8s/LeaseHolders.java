package dev.capstan.k8s;

import dev.capstan.release.ReleaseControllerBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;

/**
 * Lease holder names that say which machine holds a release's operation lease: {@code <host>/pid
 * <pid>/<8 random hex>}, the random part keeping two controllers of one process apart. release-core
 * does no I/O, so its default holder names no host; a host that runs releases for real passes
 * {@link #onThisHost()} to {@code ReleaseControllerBuilder.holder(Supplier)}.
 */
public final class LeaseHolders {
  private LeaseHolders() {}

  /**
   * A holder naming this machine, its process and a random part, e.g. {@code host-a/pid
   * 4242/1a2b3c4d}; each call of the supplier gives a new random part.
   */
  public static Supplier<String> onThisHost() {
    return () -> Host.NAME + "/" + ReleaseControllerBuilder.processHolder();
  }

  /** This machine's name, read once, on first use. */
  private static final class Host {
    static final String NAME = hostName();
  }

  /**
   * This machine's name, read without a DNS lookup (which may stall for seconds): from {@code
   * /proc/sys/kernel/hostname} or {@code /etc/hostname}, else the {@code HOSTNAME} or {@code
   * COMPUTERNAME} variable, else {@code localhost}.
   */
  public static String hostName() {
    for (String file : List.of("/proc/sys/kernel/hostname", "/etc/hostname")) {
      try {
        String name = Files.readString(Path.of(file)).strip();
        if (!name.isEmpty()) {
          return name;
        }
      } catch (IOException | RuntimeException e) {
        // try the next source
      }
    }
    for (String variable : List.of("HOSTNAME", "COMPUTERNAME")) {
      String name = System.getenv(variable);
      if (name != null && !name.isBlank()) {
        return name.strip();
      }
    }
    return "localhost";
  }
}
