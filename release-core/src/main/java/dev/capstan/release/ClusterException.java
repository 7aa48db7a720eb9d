package dev.capstan.release;

import org.jspecify.annotations.Nullable;

/**
 * A port operation failed: the cluster or store refused or could not be reached. Adapters translate
 * their client's errors into this once, at the edge, with what the caller needs to see.
 */
public class ClusterException extends ReleaseException {
  private static final long serialVersionUID = 1L;

  private final String operation;
  private final @Nullable String kind;
  private final @Nullable String namespace;
  private final @Nullable String name;
  private final int status;

  /**
   * An exception for a failed operation.
   *
   * @param operation what was attempted, e.g. {@code apply} or {@code list}
   * @param kind the kind of object, or {@code null}
   * @param namespace the namespace, or {@code null}
   * @param name the object's name, or {@code null}
   * @param status the HTTP status, or 0 when there was none
   * @param detail what went wrong
   * @param cause the underlying error, or {@code null}
   */
  public ClusterException(
      String operation,
      @Nullable String kind,
      @Nullable String namespace,
      @Nullable String name,
      int status,
      String detail,
      @Nullable Throwable cause) {
    super(message(operation, kind, namespace, name, status, detail), cause);
    this.operation = operation;
    this.kind = kind;
    this.namespace = namespace;
    this.name = name;
    this.status = status;
  }

  private static String message(
      String operation,
      @Nullable String kind,
      @Nullable String namespace,
      @Nullable String name,
      int status,
      String detail) {
    StringBuilder sb = new StringBuilder(operation);
    if (kind != null) {
      sb.append(' ').append(kind);
    }
    if (name != null) {
      sb.append(' ');
      if (namespace != null && !namespace.isEmpty()) {
        sb.append(namespace).append('/');
      }
      sb.append(name);
    } else if (namespace != null && !namespace.isEmpty()) {
      sb.append(" in namespace ").append(namespace);
    }
    sb.append(" failed");
    if (status > 0) {
      sb.append(" (HTTP ").append(status).append(')');
    }
    return sb.append(": ").append(detail).toString();
  }

  /** What was attempted. */
  public String operation() {
    return operation;
  }

  /** The kind of object, if known. */
  public @Nullable String kind() {
    return kind;
  }

  /** The namespace, if known. */
  public @Nullable String namespace() {
    return namespace;
  }

  /** The object's name, if known. */
  public @Nullable String name() {
    return name;
  }

  /** The HTTP status, or 0. */
  public int status() {
    return status;
  }
}
