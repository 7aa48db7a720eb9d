package dev.capstan.release.chart;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import java.util.ArrayList;
import java.util.List;

/**
 * The values a caller gives a chart, as Helm's command line takes them: values files ({@code -f}),
 * {@code --set}, {@code --set-string} and {@code --set-file}. Files are given by content (the core
 * reads no file); the renderer merges them as Helm does: the files in order, then {@code --set},
 * {@code --set-string}, {@code --set-file}, a later value winning. Nothing here is printed: {@link
 * #toString()} counts them, since values may be secret.
 *
 * @param files the values files, in order
 * @param set the {@code --set} expressions ({@code a.b=c,d[0]=e}), in order
 * @param setString the {@code --set-string} expressions, in order
 * @param setFile the {@code --set-file} values: a key and the file's content
 */
public record ChartValues(
    List<File> files, List<String> set, List<String> setString, List<KeyFile> setFile) {
  private static final ChartValues NONE =
      new ChartValues(List.of(), List.of(), List.of(), List.of());

  /** Copies the lists; refuses an empty expression. */
  public ChartValues {
    files = List.copyOf(files);
    set = expressions(set, "--set");
    setString = expressions(setString, "--set-string");
    setFile = List.copyOf(setFile);
  }

  /** No values: the chart's defaults. */
  public static ChartValues none() {
    return NONE;
  }

  /** A copy with one more values file (a later file wins). */
  public ChartValues withFile(String label, String content) {
    List<File> copy = new ArrayList<>(files);
    copy.add(new File(label, content));
    return new ChartValues(copy, set, setString, setFile);
  }

  /**
   * A copy with one more values file whose values are secret (read from a Kubernetes Secret): a
   * record keeps every value it gives masked, as the values of a Secret never show.
   */
  public ChartValues withSecretFile(String label, String content) {
    List<File> copy = new ArrayList<>(files);
    copy.add(new File(label, content, true));
    return new ChartValues(copy, set, setString, setFile);
  }

  /** A copy with one more {@code --set} expression. */
  public ChartValues withSet(String expression) {
    List<String> copy = new ArrayList<>(set);
    copy.add(expression);
    return new ChartValues(files, copy, setString, setFile);
  }

  /** A copy with one more {@code --set-string} expression. */
  public ChartValues withSetString(String expression) {
    List<String> copy = new ArrayList<>(setString);
    copy.add(expression);
    return new ChartValues(files, set, copy, setFile);
  }

  /** A copy with one more {@code --set-file} value: {@code key} set to the file's content. */
  public ChartValues withSetFile(String key, String label, String content) {
    List<KeyFile> copy = new ArrayList<>(setFile);
    copy.add(new KeyFile(key, label, content));
    return new ChartValues(files, set, setString, copy);
  }

  /** Whether no value is given. */
  public boolean isEmpty() {
    return files.isEmpty() && set.isEmpty() && setString.isEmpty() && setFile.isEmpty();
  }

  /** How many of each were given; never a value. */
  @Override
  public String toString() {
    return "ChartValues["
        + files.size()
        + " file(s), "
        + set.size()
        + " --set, "
        + setString.size()
        + " --set-string, "
        + setFile.size()
        + " --set-file]";
  }

  private static List<String> expressions(List<String> list, String flag) {
    for (String e : list) {
      if (e == null || e.isBlank() || !e.contains("=")) {
        throw new IllegalArgumentException(
            flag
                + " takes KEY=VALUE: an expression without '=' (not shown: a value may be secret)");
      }
    }
    return List.copyOf(list);
  }

  /**
   * One values file.
   *
   * @param label the file's name, for messages
   * @param content its YAML
   * @param secret whether its values are secret: a record masks every value it gives
   */
  public record File(String label, String content, boolean secret) {
    /** Requires the label and the content. */
    public File {
      requireNonNull(label, "label");
      requireNonNull(content, "content");
    }

    /** A values file whose values are not secret (unless their keys or texts say so). */
    public File(String label, String content) {
      this(label, content, false);
    }

    /** The label only. */
    @Override
    public String toString() {
      return "File[" + Escapes.escape(label) + (secret ? ", secret" : "") + "]";
    }
  }

  /**
   * One {@code --set-file} value.
   *
   * @param key the value's key ({@code a.b})
   * @param label the file's name, for messages
   * @param content the file's content, the value
   */
  public record KeyFile(String key, String label, String content) {
    /** Requires all three; the key must not be empty nor hold {@code =}. */
    public KeyFile {
      requireNonNull(key, "key");
      if (key.isBlank() || key.contains("=")) {
        throw new IllegalArgumentException(
            "--set-file takes KEY=FILE, the key without '=': " + Escapes.quote(key));
      }
      requireNonNull(label, "label");
      requireNonNull(content, "content");
    }

    /** The key and the label only. */
    @Override
    public String toString() {
      return "KeyFile[" + Escapes.escape(key) + "=" + Escapes.escape(label) + "]";
    }
  }
}
