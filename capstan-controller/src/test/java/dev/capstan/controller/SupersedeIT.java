package dev.capstan.controller;

import static dev.capstan.controller.ItReleases.apply;
import static dev.capstan.controller.ItReleases.awaitReady;
import static dev.capstan.controller.ItReleases.deployment;
import static dev.capstan.controller.ItReleases.message;
import static dev.capstan.controller.ItReleases.patch;
import static dev.capstan.controller.ItReleases.release;
import static dev.capstan.controller.ItReleases.spec;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.Gson;
import dev.capstan.k8s.KubeClients;
import dev.capstan.k8s.testing.Await;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.event.ReleaseListener;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.Action;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Superseding a wait on the real control plane: a Release whose Deployment cannot become ready (its
 * pod holds on the {@linkplain ControlPlane#HELD_IMAGE held image}, so its cast waits for health
 * until its 10-minute timeout) is changed during that doomed wait; the controller stops the wait,
 * records the revision failed as superseded, gives the lease up and casts the new generation.
 *
 * <p>The exact facts (the revisions, their statuses and the superseded one's reason, the writes,
 * the Release's status, no lease left) are asserted apart from the timing fact: how long after the
 * change the new generation's first write started, measured and printed, and bounded by a generous
 * timeout that is still 60 times shorter than the wait it cuts.
 */
@ControlPlaneTest
class SupersedeIT {
  /** Only the Releases of this class: other classes' controllers leave them alone. */
  private static final String LABEL = "capstan-it-supersede";

  /** The bound of the timing fact: 60 times shorter than the doomed wait's timeout. */
  private static final Duration GENEROUS = Duration.ofSeconds(10);

  private static @Nullable ReleaseResourceController controller;

  /** The engine's events with when they were heard ({@link System#nanoTime}). */
  private record Heard(long at, ReleaseEvent event) {}

  private static final List<Heard> heard = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void startTheController(ControlPlane plane) {
    ItReleases.installCrd(plane);
    controller =
        ReleaseResourceController.builder(KubeClients.fromKubeconfig(plane.kubeconfig()))
            .workers(2)
            .selector(LABEL)
            .identity("it-supersede")
            .engine(
                b -> b.listener((ReleaseListener) e -> heard.add(new Heard(System.nanoTime(), e))))
            .build();
    controller.start();
  }

  @AfterAll
  static void stopTheController() {
    ReleaseResourceController c = controller;
    if (c != null) {
      c.close();
    }
  }

  @Test
  void aReleaseChangedDuringADoomedWaitIsCastAtOnceAndTheWaitRecordedSuperseded(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    String release = ns + "/web";
    ResourceRef web = ResourceRef.parse("apps/Deployment/" + ns + "/web");
    apply(
        plane,
        ns,
        release(
            "web",
            Map.of(LABEL, "true"),
            spec(
                "manifests",
                List.of(deployment("web", ControlPlane.HELD_IMAGE)),
                "options",
                Map.of("timeout", "10m"))));
    Await.until(
        "revision 1 waiting for its Deployment",
        ItReleases.SOON,
        () -> events(release, ReleaseEvent.Verifying.class).isEmpty() ? null : true);

    long changed = System.nanoTime();
    patch(
        plane,
        ns,
        "web",
        new Gson()
            .toJson(
                Map.of(
                    "spec",
                    Map.of("manifests", List.of(deployment("web", "registry.example/web:2"))))));
    ReleaseResource done = awaitReady(plane, ns, "web", "True", "Cast");

    // exact: revision 1 failed as superseded, having written only its Deployment; revision 2
    // updated it and is deployed; the lease is given up
    assertThat(events(release, ReleaseEvent.RecordSaved.class))
        .extracting(e -> e.revision() + " " + e.status())
        .containsExactly("1 FAILED", "2 DEPLOYED");
    assertThat(events(release, ReleaseEvent.Failed.class))
        .extracting(ReleaseEvent.Failed::reason)
        .containsExactly(
            "superseded by a newer revision of the release: stopped waiting for 1 object(s) to be"
                + " healthy (apps/Deployment/"
                + ns
                + "/web); nothing more was written, and the newer revision is cast next");
    assertThat(events(release, ReleaseEvent.Started.class))
        .extracting(e -> e.action() + " " + e.ref())
        .containsExactly(Action.CREATE + " " + web, Action.UPDATE + " " + web);
    assertThat(message(done)).isEqualTo("revision 2: 1 updated");
    assertThat(new CoordinationV1Api(plane.client()).listNamespacedLease(ns).execute().getItems())
        .isEmpty();

    // timing, apart: from the change to revision 2's first write
    long castAt =
        heard.stream()
            .filter(
                h ->
                    h.event() instanceof ReleaseEvent.Started s
                        && s.release().equals(release)
                        && s.action() == Action.UPDATE)
            .mapToLong(Heard::at)
            .findFirst()
            .orElseThrow();
    long stoppedAt =
        heard.stream()
            .filter(h -> h.event() instanceof ReleaseEvent.Failed f && f.release().equals(release))
            .mapToLong(Heard::at)
            .findFirst()
            .orElseThrow();
    Duration stopped = Duration.ofNanos(stoppedAt - changed);
    Duration cast = Duration.ofNanos(castAt - changed);
    System.out.println(
        "SupersedeIT: the wait stopped "
            + stopped.toMillis()
            + " ms after the change; revision 2's first write started "
            + cast.toMillis()
            + " ms after it");
    assertThat(cast).isLessThan(GENEROUS);
  }

  private static <E extends ReleaseEvent> List<E> events(String release, Class<E> type) {
    return heard.stream()
        .map(Heard::event)
        .filter(type::isInstance)
        .map(type::cast)
        .filter(e -> release.equals(e.release()))
        .toList();
  }
}
