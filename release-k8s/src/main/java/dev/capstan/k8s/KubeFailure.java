package dev.capstan.k8s;

import dev.capstan.common.ClusterException;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1Status;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * What went wrong with one API request, before it is translated into the caller's exception: the
 * HTTP status (0 without a response), the server's reason and message, and the transport error.
 * Never holds a request or response body, so a Secret's values cannot leak through it.
 *
 * @param status the HTTP status, 0 when no response arrived
 * @param reason the Status reason, e.g. {@code Conflict}, or empty
 * @param detail the Status message, or a description of the transport error
 * @param transport the I/O error when no response arrived, else {@code null}
 */
record KubeFailure(int status, String reason, String detail, @Nullable IOException transport) {

  /**
   * The exception a port throws for this failure, once, at the adapter's edge: the same {@link
   * ClusterException} for the release ports and the platform port, naming the operation, the kind,
   * the object and the HTTP status.
   *
   * @param operation what was attempted, e.g. {@code apply}
   * @param kind the Kubernetes kind, e.g. {@code Deployment}
   * @param namespace the namespace, or {@code null}
   * @param name the object's name, or {@code null} for a collection
   * @return the exception to throw
   */
  ClusterException toException(
      String operation, String kind, @Nullable String namespace, @Nullable String name) {
    return refusesContent()
        ? new ContentRefused(operation, kind, namespace, name, status, detail)
        : new ClusterException(operation, kind, namespace, name, status, detail, transport);
  }

  /**
   * Whether the API server refused the object's content in server-side apply's own checks, which
   * answer HTTP 500 with no reason (its generic error) rather than 422: a field its schema does not
   * declare, a value of another type, duplicate list keys ({@code failed to create typed patch
   * object (shop/web; apps/v1, Kind=Deployment): .spec.replicaz: field not declared in schema}), or
   * a value the field's type cannot hold ({@code failed to convert new object (...) to proper
   * version: unable to convert unstructured object to apps/v1, Kind=Deployment: cannot convert
   * float64 to int32}). A fault of the server's own has a reason ({@code InternalError}, {@code
   * Timeout}) or another message (a conversion webhook that failed, etcd) and is no refusal.
   */
  boolean refusesContent() {
    return status == 500
        && reason.isEmpty()
        && (detail.startsWith("failed to create typed patch object")
            || (detail.startsWith("failed to convert new object")
                && detail.contains(": unable to convert unstructured object to ")));
  }

  /**
   * The API server's refusal of an object's content ({@link #refusesContent}): a verdict on the
   * object, as a 422 is, though it comes as HTTP 500.
   */
  static final class ContentRefused extends ClusterException {
    private static final long serialVersionUID = 1L;

    ContentRefused(
        String operation,
        String kind,
        @Nullable String namespace,
        @Nullable String name,
        int status,
        String detail) {
      super(operation, kind, namespace, name, status, detail, null);
    }
  }

  /** Whether the request was cut short by an interrupt of the calling thread. */
  boolean interrupted() {
    return transport instanceof InterruptedIOException
        && !(transport instanceof SocketTimeoutException);
  }

  /**
   * The failure of a call that threw; restores the thread's interrupt flag when the call was
   * interrupted.
   */
  static KubeFailure of(ApiException e) {
    KubeFailure f;
    if (e.getCode() == 0) {
      IOException io = e.getCause() instanceof IOException c ? c : null;
      f = transport(io, e.getMessage());
    } else {
      f = fromBody(e.getCode(), e.getResponseBody());
    }
    f.restoreInterrupt();
    return f;
  }

  /** The failure a {@code GenericKubernetesApi} call reported as a Status. */
  static KubeFailure of(@Nullable V1Status status, int code) {
    if (status == null) {
      return new KubeFailure(code, "", "no status returned", null);
    }
    String message = status.getMessage() == null ? "" : status.getMessage();
    // GenericKubernetesApi puts the raw body in the message when the body is no Status (a Status
    // from the API server always has its kind): never show such a body.
    if (status.getKind() == null) {
      return fromBody(code, message);
    }
    return new KubeFailure(code, nonNull(status.getReason()), message, null);
  }

  /**
   * The failure behind a {@code GenericKubernetesApi} call that threw (it wraps I/O errors in an
   * {@link IllegalStateException}); {@code null} when {@code e} is not such a wrapper.
   */
  static @Nullable KubeFailure ofWrapped(RuntimeException e) {
    if (e.getCause() instanceof IOException io) {
      KubeFailure f = transport(io, io.getMessage());
      f.restoreInterrupt();
      return f;
    }
    return null;
  }

  private static KubeFailure transport(@Nullable IOException io, @Nullable String message) {
    String what =
        io instanceof InterruptedIOException && !(io instanceof SocketTimeoutException)
            ? "interrupted"
            : io == null
                ? String.valueOf(message)
                : io.getClass().getSimpleName() + ": " + io.getMessage();
    return new KubeFailure(0, "", what, io);
  }

  private static KubeFailure fromBody(int code, @Nullable String body) {
    if (body != null && !body.isBlank()) {
      try {
        V1Status status = JSON.deserialize(body, V1Status.class);
        if (status != null && status.getMessage() != null) {
          return new KubeFailure(code, nonNull(status.getReason()), status.getMessage(), null);
        }
      } catch (RuntimeException notAStatus) {
        // fall through: the body is not a Status; it is not shown (it could be anything)
      }
    }
    return new KubeFailure(code, "", "HTTP " + code + " without a Status body", null);
  }

  private void restoreInterrupt() {
    if (interrupted()) {
      Thread.currentThread().interrupt();
    }
  }

  private static String nonNull(@Nullable String s) {
    return s == null ? "" : s;
  }
}
