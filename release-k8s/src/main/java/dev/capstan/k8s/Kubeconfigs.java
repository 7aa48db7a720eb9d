package dev.capstan.k8s;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.kubernetes.client.util.KubeConfig;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Reads kubeconfig files, one or the list of a {@code $KUBECONFIG}, merged as kubectl merges them
 * (its {@code clientcmd} loading rules): each cluster, user and context is the first file's that
 * names it, and the current context is the first file's that sets one. A path inside a file
 * (certificate authority, client certificate and key, token file, an exec command naming a path) is
 * relative to that file's folder, so the merge makes it absolute before the files meet.
 */
final class Kubeconfigs {
  private Kubeconfigs() {}

  /** The files as a message names them: one path, or the list joined by the path separator. */
  static String describe(List<Path> files) {
    return files.stream()
        .map(Path::toString)
        .collect(Collectors.joining(java.io.File.pathSeparator));
  }

  /**
   * The files read once: {@link Parsed#config()} gives each client a configuration of its own
   * (building a client may refresh its credentials in it) without reading the files again.
   */
  static Parsed read(List<Path> files) {
    return new Parsed(load(files), files.get(0));
  }

  /** Kubeconfig files, read and merged. */
  static final class Parsed {
    private final KubeConfig read;
    private final Path first;

    private Parsed(KubeConfig read, Path first) {
      this.read = read;
      this.first = first;
    }

    /** A configuration of its own, on the current context. */
    KubeConfig config() {
      KubeConfig copy =
          new KubeConfig(copy(read.getContexts()), copy(read.getClusters()), copy(read.getUsers()));
      if (read.getPreferences() != null) {
        copy.setPreferences(read.getPreferences());
      }
      copy.setFile(first.toAbsolutePath().toFile());
      String current = read.getCurrentContext();
      if (current != null && !current.isEmpty()) {
        copy.setContext(current);
      }
      return copy;
    }

    /** A configuration of its own, on {@code context} (which it has). */
    KubeConfig config(String context) {
      KubeConfig copy = config();
      copy.setContext(context);
      return copy;
    }

    @SuppressWarnings("NonApiType") // KubeConfig's constructor takes ArrayLists
    private static ArrayList<Object> copy(@Nullable List<Object> entries) {
      ArrayList<Object> out = new ArrayList<>();
      if (entries != null) {
        entries.forEach(e -> out.add(deepCopy(e)));
      }
      return out;
    }

    private static Object deepCopy(Object value) {
      if (value instanceof Map<?, ?> m) {
        Map<Object, Object> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(k, v == null ? null : deepCopy(v)));
        return out;
      }
      if (value instanceof List<?> l) {
        List<Object> out = new ArrayList<>();
        l.forEach(v -> out.add(v == null ? null : deepCopy(v)));
        return out;
      }
      return value;
    }
  }

  /** The merged configuration of {@code files}, on its current context. */
  static KubeConfig load(List<Path> files) {
    if (files.size() == 1) {
      return load(files.get(0));
    }
    ArrayList<Object> contexts = new ArrayList<>();
    ArrayList<Object> clusters = new ArrayList<>();
    ArrayList<Object> users = new ArrayList<>();
    Set<String> contextNames = new HashSet<>();
    Set<String> clusterNames = new HashSet<>();
    Set<String> userNames = new HashSet<>();
    String current = null;
    Object preferences = null;
    for (Path file : files) {
      KubeConfig one = load(file);
      Path dir = file.toAbsolutePath().getParent();
      addFirst(contexts, contextNames, one.getContexts(), "context", null);
      addFirst(clusters, clusterNames, one.getClusters(), "cluster", dir);
      addFirst(users, userNames, one.getUsers(), "user", dir);
      String named = one.getCurrentContext();
      if (current == null && named != null && !named.isEmpty()) {
        current = named;
      }
      if (preferences == null) {
        preferences = one.getPreferences();
      }
    }
    KubeConfig merged = new KubeConfig(contexts, clusters, users);
    if (preferences != null) {
      merged.setPreferences(preferences);
    }
    merged.setFile(files.get(0).toAbsolutePath().toFile());
    if (current != null) {
      merged.setContext(current);
    }
    return merged;
  }

  /** Where SnakeYAML's messages place a syntax error: {@code in 'reader', line 7, column 12:}. */
  private static final java.util.regex.Pattern YAML_POSITION =
      java.util.regex.Pattern.compile("line (\\d+), column (\\d+)");

  private static KubeConfig load(Path file) {
    try (Reader reader = Files.newBufferedReader(file, UTF_8)) {
      KubeConfig config = KubeConfig.loadKubeConfig(reader);
      config.setFile(file.toAbsolutePath().toFile());
      return config;
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot read kubeconfig " + file + ": " + e.getMessage(), e);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "kubeconfig " + file + " is not a valid kubeconfig: " + withoutExcerpt(e));
    }
  }

  /**
   * A kubeconfig parser's message without the excerpt of the file a YAML syntax error quotes: the
   * line may hold a token or a client key. {@code not valid YAML at line 7, column 12}, or the
   * message as it is when it names no position (a structure of another shape).
   */
  static String withoutExcerpt(RuntimeException e) {
    String message = String.valueOf(e.getMessage());
    java.util.regex.Matcher at = YAML_POSITION.matcher(message);
    return at.find()
        ? "not valid YAML at line "
            + at.group(1)
            + ", column "
            + at.group(2)
            + " (the parser's excerpt is not shown: it may hold a token or a key)"
        : message;
  }

  /**
   * Adds the entries of {@code from} whose names {@code seen} lacks; with {@code dir}, their
   * relative paths made absolute against it.
   */
  private static void addFirst(
      List<Object> into,
      Set<String> seen,
      @Nullable List<Object> from,
      String field,
      @Nullable Path dir) {
    if (from == null) {
      return;
    }
    for (Object entry : from) {
      if (entry instanceof Map<?, ?> m
          && m.get("name") instanceof String name
          && !name.isEmpty()
          && seen.add(name)) {
        into.add(dir == null ? entry : absolute(m, field, dir));
      }
    }
  }

  /** A copy of a cluster or user entry whose relative paths are absolute against {@code dir}. */
  private static Map<String, Object> absolute(Map<?, ?> entry, String field, Path dir) {
    Map<String, Object> copy = new LinkedHashMap<>();
    entry.forEach((k, v) -> copy.put(String.valueOf(k), v));
    if (!(entry.get(field) instanceof Map<?, ?> body)) {
      return copy;
    }
    Map<String, Object> fields = new LinkedHashMap<>();
    body.forEach((k, v) -> fields.put(String.valueOf(k), v));
    for (String key :
        List.of("certificate-authority", "client-certificate", "client-key", "tokenFile")) {
      if (fields.get(key) instanceof String path && !path.isEmpty()) {
        fields.put(key, dir.resolve(path).toString());
      }
    }
    if (fields.get("exec") instanceof Map<?, ?> exec
        && exec.get("command") instanceof String command
        && command.contains("/")) {
      // kubectl: a command naming a path is relative to the kubeconfig; a bare name is on PATH
      Map<String, Object> execCopy = new LinkedHashMap<>();
      exec.forEach((k, v) -> execCopy.put(String.valueOf(k), v));
      execCopy.put("command", dir.resolve(command).toString());
      fields.put("exec", execCopy);
    }
    copy.put(field, fields);
    return copy;
  }

  /** The context names of a kubeconfig, in the order it gives them. */
  static List<String> contexts(KubeConfig config) {
    List<String> names = new ArrayList<>();
    List<Object> contexts = config.getContexts();
    if (contexts != null) {
      for (Object c : contexts) {
        if (c instanceof Map<?, ?> m && m.get("name") instanceof String name) {
          names.add(name);
        }
      }
    }
    return names;
  }
}
