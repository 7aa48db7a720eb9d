package dev.capstan.k8s;

import dev.capstan.common.ClusterException;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.port.Precondition;
import dev.capstan.release.port.PreconditionFailedException;

/** A conditioned write the API server refused with 409: the write was fenced. */
final class Fences {
  private Fences() {}

  /** A 409 on a conditioned write is the precondition failing: the write was fenced. */
  static RuntimeException fenced(
      ClusterException e, String operation, ResourceRef ref, Precondition precondition) {
    if (e.status() != 409 || precondition instanceof Precondition.None) {
      return e;
    }
    String message = String.valueOf(e.getMessage());
    int at = message.indexOf("(HTTP 409): ");
    String detail = at < 0 ? message : message.substring(at + "(HTTP 409): ".length());
    return new PreconditionFailedException(operation, ref, precondition, 409, detail, e);
  }
}
