package dev.capstan.common;

import org.jspecify.annotations.Nullable;

/**
 * A port call failed: the cluster or the record store refused the request or could not be reached.
 * Every adapter (Kubernetes, JDBC, the in-memory fakes) translates its client's errors into this
 * one type, once, at its edge, for the release ports and the platform port alike. The message names
 * the operation, the object and the HTTP status:
 *
 * <pre>{@code patch Deployment shop/web failed (HTTP 422): <the server's message>}</pre>
 */
public class ClusterException extends CapstanException {
  private static final long serialVersionUID = 1L;

  private final String operation;
  private final @Nullable String kind;
  private final @Nullable String namespace;
  private final @Nullable String name;
  private final int status;

  /**
   * Creates the exception for a failed call on an object or a collection.
   *
   * @param operation what was attempted, for example {@code apply}, {@code patch} or {@code list}
   * @param kind the object's kind, for example {@code Deployment}, or {@code null}
   * @param namespace the namespace, or {@code null} (cluster-scoped, or unknown)
   * @param name the object's name, or {@code null} for a collection
   * @param status the HTTP status, or 0 when no response arrived
   * @param detail what went wrong
   * @param cause the client's exception, or {@code null}
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

  /**
   * Creates the exception from a message alone (no object, no HTTP status).
   *
   * @param message which call failed on which object, and why
   */
  public ClusterException(String message) {
    this(message, null);
  }

  /**
   * Creates the exception from a message alone, with the client's exception as cause.
   *
   * @param message which call failed on which object, and why
   * @param cause the client's exception, or {@code null}
   */
  public ClusterException(String message, @Nullable Throwable cause) {
    super(message, cause);
    this.operation = "";
    this.kind = null;
    this.namespace = null;
    this.name = null;
    this.status = 0;
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

  /**
   * Returns what was attempted.
   *
   * @return for example {@code patch}; empty when only a message was given
   */
  public String operation() {
    return operation;
  }

  /**
   * Returns the kind of the object.
   *
   * @return for example {@code Deployment}, or {@code null} when not known
   */
  public @Nullable String kind() {
    return kind;
  }

  /**
   * Returns the object's namespace.
   *
   * @return the namespace, or {@code null} when cluster-scoped or not known
   */
  public @Nullable String namespace() {
    return namespace;
  }

  /**
   * Returns the object's name.
   *
   * @return the name, or {@code null} for a collection or when not known
   */
  public @Nullable String name() {
    return name;
  }

  /**
   * Returns the HTTP status of the failed request.
   *
   * @return the status, or 0 when no response arrived or none is known
   */
  public int status() {
    return status;
  }
}
