package dev.capstan.examples.cli;

import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.port.Orchestrator;
import dev.capstan.release.port.Store;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The in-memory cluster, kept in a state file between commands so that consecutive commands see the
 * same cluster. A new state has the namespaces {@code default} and {@code demo} and the storage
 * class {@code standard}.
 */
final class InMemoryTarget implements Target {
  private final Path stateFile;
  private final InMemoryCluster cluster;

  private InMemoryTarget(Path stateFile, InMemoryCluster cluster) {
    this.stateFile = stateFile;
    this.cluster = cluster;
  }

  /** Loads the state file, or seeds a new cluster when it does not exist. */
  static InMemoryTarget open(Path stateFile) {
    if (!Files.exists(stateFile)) {
      return new InMemoryTarget(stateFile, InMemoryCluster.create().addNamespace("demo"));
    }
    try {
      return new InMemoryTarget(
          stateFile, InMemoryCluster.importState(Files.readAllBytes(stateFile)));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the state file " + stateFile, e);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "state file "
              + stateFile
              + " is not a Capstan in-memory cluster (delete it to start over): "
              + e.getMessage(),
          e);
    }
  }

  InMemoryCluster cluster() {
    return cluster;
  }

  @Override
  public Orchestrator orchestrator() {
    return cluster;
  }

  @Override
  public Store store() {
    return cluster;
  }

  @Override
  public String describe() {
    return "in-memory cluster (state in " + stateFile + ")";
  }

  @Override
  public void close() {
    try {
      Path dir = stateFile.toAbsolutePath().getParent();
      Files.createDirectories(dir);
      Path tmp = Files.createTempFile(dir, ".state", ".tmp");
      Files.write(tmp, cluster.exportState());
      Files.move(
          tmp, stateFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the state file " + stateFile, e);
    }
  }
}
