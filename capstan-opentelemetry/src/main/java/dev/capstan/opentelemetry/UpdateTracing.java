package dev.capstan.opentelemetry;

import static java.util.Objects.requireNonNull;

import dev.capstan.update.event.UpdateEvent;
import dev.capstan.update.event.UpdateListener;
import dev.capstan.update.result.WorkloadStatus;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import org.jspecify.annotations.Nullable;

/**
 * Platform update traces, as one listener of the applier:
 *
 * <pre>{@code
 * UpdateResult result =
 *     UpdateApplier.apply(
 *         cluster, plan, ApplyOptions.defaults().withListener(UpdateTracing.of(openTelemetry)));
 * }</pre>
 *
 * <p>Spans (all {@code INTERNAL}):
 *
 * <ul>
 *   <li>{@code capstan update}: one per apply, a child of the context current where it was called;
 *       attributes {@value #TARGET_VERSION}, {@value #WORKLOADS}, {@value #CRDS}, and at its end
 *       {@value #OUTCOME} and {@code capstan.workloads.<status>} for each status reached; status
 *       {@code ERROR} and {@value #ERROR_TYPE} unless the outcome is {@code completed}. Span events
 *       {@code rolled-back} and {@code rollback-failed} name the workload.
 *   <li>{@code capstan wait crd}: a CRD applied, until it is established, {@value #CRD};
 *   <li>{@code capstan wait rollout}: a workload patched, until it rolled out or failed, {@value
 *       #NAMESPACE} and {@value #DEPLOYMENT}.
 * </ul>
 */
// its core is an optional dependency (module-info): a host of this class requires it itself
@SuppressWarnings("exports")
public final class UpdateTracing implements UpdateListener {
  /** The instrumentation scope name. */
  public static final String SCOPE = "dev.capstan.update";

  /** The release version applied. */
  public static final String TARGET_VERSION = "capstan.update.target_version";

  /** How many Deployments the plan patches. */
  public static final String WORKLOADS = "capstan.update.workloads";

  /** How many CRDs the plan applies. */
  public static final String CRDS = "capstan.update.crds";

  /** How the apply ended: {@code completed}, {@code rolled_back}, ... */
  public static final String OUTCOME = "capstan.outcome";

  /** A CRD's name. */
  public static final String CRD = "capstan.crd";

  /** A workload, {@code namespace/name}, on the update's span events. */
  public static final String WORKLOAD = "capstan.workload";

  /**
   * A rollout's namespace: OpenTelemetry's {@code k8s.namespace.name} (semantic conventions,
   * Kubernetes attributes).
   */
  public static final String NAMESPACE = "k8s.namespace.name";

  /** A rollout's Deployment: OpenTelemetry's {@code k8s.deployment.name}. */
  public static final String DEPLOYMENT = "k8s.deployment.name";

  /**
   * How a failed apply ended: OpenTelemetry's {@code error.type}, the outcome ({@code failed},
   * {@code rolled_back}, {@code rollback_failed}, {@code error}); set only when it is not {@code
   * completed}.
   */
  public static final String ERROR_TYPE = "error.type";

  private static final AttributeKey<String> WORKLOAD_KEY = AttributeKey.stringKey(WORKLOAD);

  private final Tracer tracer;

  private UpdateTracing(Tracer tracer) {
    this.tracer = tracer;
  }

  /**
   * Returns traces on {@code openTelemetry}'s tracer of scope {@value #SCOPE}.
   *
   * @param openTelemetry the OpenTelemetry instance
   * @return the listener
   */
  public static UpdateTracing of(OpenTelemetry openTelemetry) {
    return of(requireNonNull(openTelemetry, "openTelemetry").getTracer(SCOPE));
  }

  /**
   * Returns traces on {@code tracer}.
   *
   * @param tracer the tracer
   * @return the listener
   */
  public static UpdateTracing of(Tracer tracer) {
    return new UpdateTracing(requireNonNull(tracer, "tracer"));
  }

  /** Ignores events outside an apply (the plan, image builds). */
  @Override
  public void onEvent(UpdateEvent event) {}

  @Override
  public UpdateListener begin(UpdateEvent.UpdateStarted started) {
    Span span =
        tracer
            .spanBuilder("capstan update")
            .setParent(Context.current())
            .setAttribute(TARGET_VERSION, started.targetVersion())
            .setAttribute(WORKLOADS, started.workloads())
            .setAttribute(CRDS, started.crds())
            .startSpan();
    return new ApplySpan(tracer, span);
  }

  /** The spans of one apply. */
  private static final class ApplySpan implements UpdateListener {
    private final Tracer tracer;
    private final Span update;
    private @Nullable Span wait;

    ApplySpan(Tracer tracer, Span update) {
      this.tracer = tracer;
      this.update = update;
    }

    private Span child(String name) {
      return tracer.spanBuilder(name).setParent(Context.root().with(update)).startSpan();
    }

    @Override
    public synchronized void onEvent(UpdateEvent event) {
      if (event instanceof UpdateEvent.CrdApplied c) {
        wait = child("capstan wait crd").setAttribute(CRD, c.name());
      } else if (event instanceof UpdateEvent.CrdEstablished) {
        wait = end(wait, null);
      } else if (event instanceof UpdateEvent.WorkloadPatched p) {
        wait =
            child("capstan wait rollout")
                .setAttribute(NAMESPACE, p.workload().namespace())
                .setAttribute(DEPLOYMENT, p.workload().deployment());
      } else if (event instanceof UpdateEvent.WorkloadRolledOut) {
        wait = end(wait, null);
      } else if (event instanceof UpdateEvent.WorkloadFailed f) {
        wait = end(wait, f.error());
      } else if (event instanceof UpdateEvent.WorkloadRolledBack r) {
        update.addEvent("rolled-back", Attributes.of(WORKLOAD_KEY, r.workload().key()));
      } else if (event instanceof UpdateEvent.RollbackFailed r) {
        update.addEvent("rollback-failed", Attributes.of(WORKLOAD_KEY, r.workload().key()));
      } else if (event instanceof UpdateEvent.UpdateFinished f) {
        String error = f.error();
        wait = end(wait, error == null ? "stopped" : error);
        update.setAttribute(OUTCOME, f.outcome().id());
        for (WorkloadStatus status : WorkloadStatus.values()) {
          int n = f.workloads(status);
          if (n > 0) {
            update.setAttribute("capstan.workloads." + status.label(), n);
          }
        }
        if (f.outcome() != UpdateEvent.Outcome.COMPLETED) {
          update.setAttribute(ERROR_TYPE, f.outcome().id());
          update.setStatus(StatusCode.ERROR, error == null ? f.outcome().id() : error);
        }
        update.end();
      }
    }

    private static @Nullable Span end(@Nullable Span span, @Nullable String error) {
      if (span != null) {
        if (error != null) {
          span.setStatus(StatusCode.ERROR, error);
        }
        span.end();
      }
      return null;
    }
  }
}
