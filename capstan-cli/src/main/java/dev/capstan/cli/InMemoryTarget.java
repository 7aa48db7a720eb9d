package dev.capstan.cli;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.capstan.cli.demo.DemoPlatform;
import dev.capstan.common.JsonMappers;
import dev.capstan.common.StrictDocuments;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.port.Orchestrator;
import dev.capstan.release.port.Store;
import dev.capstan.update.cluster.PlatformCluster;
import dev.capstan.update.memory.InMemoryPlatformCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The in-memory cluster, kept in a state file between commands so that consecutive commands see the
 * same cluster. A new state has the namespaces {@code default} and {@code demo}, the storage class
 * {@code standard}, and the demo platform (MCP Runtime v0.4.0) installed.
 */
final class InMemoryTarget implements Target {
  private static final String FORMAT = "capstan.dev/cli-state.v1";
  private static final ObjectMapper JSON = JsonMappers.trees();

  private final Path stateFile;
  private final InMemoryCluster cluster;
  private final InMemoryPlatformCluster platform;
  private final boolean save;

  private InMemoryTarget(
      Path stateFile, InMemoryCluster cluster, InMemoryPlatformCluster platform, boolean save) {
    this.stateFile = stateFile;
    this.cluster = cluster;
    this.platform = platform;
    this.save = save;
  }

  /**
   * The state file's cluster to read only (what completion offers): never saved, and empty (no
   * namespace but {@code default}, no release) when the file does not exist, which is not created.
   */
  static InMemoryTarget read(Path stateFile) {
    if (!Files.exists(stateFile)) {
      return new InMemoryTarget(
          stateFile, InMemoryCluster.create(), InMemoryPlatformCluster.create(), false);
    }
    InMemoryTarget loaded = open(stateFile);
    return new InMemoryTarget(stateFile, loaded.cluster, loaded.platform, false);
  }

  /** Loads the state file, or seeds a new cluster when it does not exist. */
  static InMemoryTarget open(Path stateFile) {
    if (!Files.exists(stateFile)) {
      return new InMemoryTarget(
          stateFile,
          InMemoryCluster.create().addNamespace("demo"),
          DemoPlatform.installed(DemoPlatform.catalog(), "v0.4.0"),
          true);
    }
    try {
      JsonNode root = JSON.readTree(Files.readAllBytes(stateFile));
      if (root == null || !FORMAT.equals(root.path("format").asText())) {
        throw new IllegalArgumentException("it has no format " + FORMAT);
      }
      return new InMemoryTarget(
          stateFile,
          InMemoryCluster.importState(JSON.writeValueAsBytes(root.get("releases"))),
          InMemoryPlatformCluster.importState(JSON.writeValueAsBytes(root.get("platform"))),
          true);
    } catch (IOException | IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "state file "
              + stateFile
              + " is not a capstan in-memory state (delete it to start over): "
              + problem(e),
          e);
    }
  }

  /**
   * What is wrong with the state file: Jackson's finding as a person reads it, else the message.
   */
  private static String problem(Exception e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof JacksonException json) {
        return StrictDocuments.describe(json);
      }
    }
    return String.valueOf(e.getMessage());
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
  public PlatformCluster platform() {
    return platform;
  }

  @Override
  public String describe() {
    return "in-memory cluster (state in " + stateFile + ")";
  }

  /**
   * Saves the state file, on an interrupted thread too (a command stopped by an interrupt keeps
   * what it did, as the cluster would): the interrupt status is cleared meanwhile, since a file
   * channel's write on an interrupted thread fails, and set again after.
   */
  @Override
  public void close() {
    if (!save) {
      return;
    }
    boolean interrupted = Thread.interrupted();
    try {
      ObjectNode root = JSON.createObjectNode();
      root.put("format", FORMAT);
      root.set("releases", JSON.readTree(cluster.exportState()));
      root.set("platform", JSON.readTree(platform.exportState()));
      Path dir = stateFile.toAbsolutePath().getParent();
      Files.createDirectories(dir);
      Path tmp = Files.createTempFile(dir, ".state", ".tmp");
      Files.write(tmp, JSON.writeValueAsBytes(root));
      Files.move(
          tmp, stateFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the state file " + stateFile, e);
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
