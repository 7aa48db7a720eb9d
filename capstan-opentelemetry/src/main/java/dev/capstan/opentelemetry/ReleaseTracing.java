package dev.capstan.opentelemetry;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.event.Outcome;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.event.ReleaseListener;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import org.jspecify.annotations.Nullable;

/**
 * Release traces, as one listener of a {@code ReleaseController}:
 *
 * <pre>{@code
 * ReleaseController releases =
 *     ReleaseController.builder(orchestrator, store)
 *         .listener(ReleaseTracing.of(openTelemetry))
 *         .build();
 * }</pre>
 *
 * <p>Spans (all {@code INTERNAL}):
 *
 * <ul>
 *   <li>{@code capstan plan}, {@code capstan cast}, {@code capstan rollback}, {@code capstan
 *       uninstall}: one per operation, a child of the context current where the operation was
 *       called; attributes {@value #NAMESPACE}, {@value #NAME}, {@value #OPERATION}, and at its end
 *       {@value #OUTCOME}, {@value #REVISION}, {@value #STATUS}, {@value #WRITES} and {@code
 *       capstan.changes.<action>} for each action planned; unless the outcome is {@code succeeded}:
 *       status {@code ERROR} with the reason, {@value #ERROR_TYPE} and the exception the caller got
 *       as an {@code exception} event ({@code Span.recordException}: its type, message and stack
 *       trace). Span events {@code fenced}, {@code retrying}, {@code warning} and {@code reverted}.
 *   <li>{@code capstan wave}: one per apply wave, {@value #WAVE}, {@value #WAVE_WRITES};
 *   <li>{@code capstan wait healthy}: one per health wait (CRDs, a wave, an uninstall's deletions),
 *       a child of its wave when there is one, {@value #OBJECTS};
 *   <li>{@code capstan wait lease}: queueing behind another holder's lease, {@value #HOLDER}.
 * </ul>
 *
 * <p>A wave or wait still open when the operation ends (it failed there) ends with status {@code
 * ERROR}.
 */
// its core is an optional dependency (module-info): a host of this class requires it itself
@SuppressWarnings("exports")
public final class ReleaseTracing implements ReleaseListener {
  /** The instrumentation scope name. */
  public static final String SCOPE = "dev.capstan.release";

  /**
   * The release's namespace: OpenTelemetry's {@code k8s.namespace.name} (semantic conventions,
   * Kubernetes attributes).
   */
  public static final String NAMESPACE = "k8s.namespace.name";

  /**
   * The class of error a failed operation ended with: OpenTelemetry's {@code error.type}, the
   * fully-qualified class name of the exception it threw (e.g. {@code
   * dev.capstan.release.error.CastFailedException}); set only when the outcome is not {@code
   * succeeded}.
   */
  public static final String ERROR_TYPE = "error.type";

  /** The release's name. */
  public static final String NAME = "capstan.release.name";

  /** The operation: {@code plan}, {@code cast}, {@code rollback}, {@code uninstall}. */
  public static final String OPERATION = "capstan.operation";

  /** How it ended: {@code succeeded}, {@code failed}, {@code conflict}, ... */
  public static final String OUTCOME = "capstan.outcome";

  /** The revision recorded, planned or refused. */
  public static final String REVISION = "capstan.release.revision";

  /** The status the revision was recorded with last. */
  public static final String STATUS = "capstan.release.status";

  /** The writes and removals that completed. */
  public static final String WRITES = "capstan.writes";

  /** A wave's number. */
  public static final String WAVE = "capstan.wave";

  /** How many objects a wave writes. */
  public static final String WAVE_WRITES = "capstan.wave.writes";

  /** How many objects a wait waits for. */
  public static final String OBJECTS = "capstan.objects";

  /** Who holds the lease waited for. */
  public static final String HOLDER = "capstan.lease.holder";

  private static final AttributeKey<String> OBJECT = AttributeKey.stringKey("capstan.object");
  private static final AttributeKey<String> REASON = AttributeKey.stringKey("capstan.reason");

  private final Tracer tracer;

  private ReleaseTracing(Tracer tracer) {
    this.tracer = tracer;
  }

  /** Traces on {@code openTelemetry}'s tracer of scope {@value #SCOPE}. */
  public static ReleaseTracing of(OpenTelemetry openTelemetry) {
    return of(requireNonNull(openTelemetry, "openTelemetry").getTracer(SCOPE));
  }

  /** Traces on {@code tracer}. */
  public static ReleaseTracing of(Tracer tracer) {
    return new ReleaseTracing(requireNonNull(tracer, "tracer"));
  }

  /** Ignores events outside an operation (there are none). */
  @Override
  public void on(ReleaseEvent event) {}

  @Override
  public ReleaseListener begin(ReleaseEvent.OperationStarted started) {
    String release = started.release();
    int slash = release.indexOf('/');
    Span span =
        tracer
            .spanBuilder("capstan " + started.operation().id())
            .setParent(Context.current())
            .setAttribute(NAMESPACE, slash < 0 ? "" : release.substring(0, slash))
            .setAttribute(NAME, release.substring(slash + 1))
            .setAttribute(OPERATION, started.operation().id())
            .startSpan();
    return new OperationSpan(tracer, span);
  }

  /** The spans of one operation. */
  private static final class OperationSpan implements ReleaseListener {
    private final Tracer tracer;
    private final Span operation;
    private @Nullable Span wave;
    private @Nullable Span healthWait;
    private @Nullable Span leaseWait;

    OperationSpan(Tracer tracer, Span operation) {
      this.tracer = tracer;
      this.operation = operation;
    }

    private Span child(String name, Span parent) {
      return tracer.spanBuilder(name).setParent(Context.root().with(parent)).startSpan();
    }

    @Override
    public synchronized void on(ReleaseEvent event) {
      if (event instanceof ReleaseEvent.WaitingForLease w) {
        leaseWait = child("capstan wait lease", operation).setAttribute(HOLDER, w.holder());
      } else if (event instanceof ReleaseEvent.LeaseAcquired) {
        leaseWait = end(leaseWait);
      } else if (event instanceof ReleaseEvent.WaveStarted w) {
        wave =
            child("capstan wave", operation)
                .setAttribute(WAVE, w.wave())
                .setAttribute(WAVE_WRITES, w.writes());
      } else if (event instanceof ReleaseEvent.WaveFinished) {
        wave = end(wave);
      } else if (event instanceof ReleaseEvent.Verifying v) {
        Span parent = wave != null ? wave : operation;
        healthWait =
            child("capstan wait healthy", parent).setAttribute(OBJECTS, v.objects().size());
      } else if (event instanceof ReleaseEvent.Verified) {
        healthWait = end(healthWait);
      } else if (event instanceof ReleaseEvent.Fenced f) {
        operation.addEvent("fenced", Attributes.of(OBJECT, f.ref().key(), REASON, f.reason()));
      } else if (event instanceof ReleaseEvent.Retrying r) {
        operation.addEvent(
            "retrying",
            Attributes.of(
                AttributeKey.stringKey("capstan.step"), r.operation(), REASON, r.reason()));
      } else if (event instanceof ReleaseEvent.Warning w) {
        operation.addEvent("warning", Attributes.of(REASON, w.message()));
      } else if (event instanceof ReleaseEvent.Reverted r) {
        operation.addEvent(
            "reverted",
            Attributes.of(OBJECT, r.ref().key(), AttributeKey.booleanKey("capstan.ok"), r.ok()));
      } else if (event instanceof ReleaseEvent.Finished f) {
        finish(f);
      }
    }

    private void finish(ReleaseEvent.Finished f) {
      String reason = f.reason();
      for (Span open : new Span[] {healthWait, wave, leaseWait}) {
        if (open != null) {
          open.setStatus(StatusCode.ERROR, reason == null ? "" : reason).end();
        }
      }
      healthWait = null;
      wave = null;
      leaseWait = null;
      operation.setAttribute(OUTCOME, f.outcome().id()).setAttribute(WRITES, f.writes());
      if (f.revision() > 0) {
        operation.setAttribute(REVISION, f.revision());
      }
      var status = f.status();
      if (status != null) {
        operation.setAttribute(STATUS, status.id());
      }
      f.changes()
          .forEach((action, n) -> operation.setAttribute("capstan.changes." + action.id(), n));
      if (f.outcome() != Outcome.SUCCEEDED) {
        Throwable error = f.error();
        operation.setAttribute(
            ERROR_TYPE, error == null ? f.outcome().id() : error.getClass().getName());
        if (error != null) {
          operation.recordException(error);
        }
        operation.setStatus(StatusCode.ERROR, reason == null ? f.outcome().id() : reason);
      }
      operation.end();
    }

    private static @Nullable Span end(@Nullable Span span) {
      if (span != null) {
        span.end();
      }
      return null;
    }
  }
}
