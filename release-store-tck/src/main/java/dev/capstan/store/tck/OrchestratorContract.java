package dev.capstan.store.tck;

import static java.util.Objects.requireNonNull;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.capstan.release.model.ContentHash;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.LiveObject;
import dev.capstan.release.port.Orchestrator;
import dev.capstan.release.port.Precondition;
import dev.capstan.release.port.PreconditionFailedException;
import dev.capstan.release.port.Readiness;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link Orchestrator}: observe, apply with a stamp and a precondition, the dry
 * run, delete and un-stamp by owner and precondition, the wait for deletion and for health,
 * namespaces created and ensured, and the kind check. Extend it, implement {@link
 * #newOrchestrator()} (and {@link #newNamespace()} where namespaces must be created first), and run
 * it as a test class.
 *
 * <p>Every test works in a namespace of its own ({@link #namespace()}), with objects any cluster
 * has: ConfigMaps, Secrets, Namespaces, and one Deployment for readiness. What it asserts is what
 * the port's javadoc promises and every implementation Capstan ships ({@code InMemoryCluster},
 * {@code KubernetesOrchestrator}) does alike; how a refusal is worded is the implementation's own,
 * so only the exception's type, object, precondition and operation are asserted.
 */
public abstract class OrchestratorContract {
  /** How long a wait the tests expect to end may take on a real cluster. */
  protected static final Duration WAIT = Duration.ofSeconds(90);

  /** The release the tests' objects belong to. */
  protected static final ReleaseIdentity OWNER = new ReleaseIdentity("tck", "app", "id-app");

  /** Another release, which owns none of the tests' objects unless a test says so. */
  protected static final ReleaseIdentity OTHER = new ReleaseIdentity("tck", "web", "id-web");

  /**
   * The image of a Deployment whose pods never become ready: a registry that does not exist ({@code
   * .invalid}), so a real cluster cannot pull it; an in-memory cluster must be told.
   */
  protected static final String NEVER_READY_IMAGE = "registry.invalid/never-ready:1";

  private static final AtomicInteger NAMESPACES = new AtomicInteger();

  private @Nullable Orchestrator orchestrator;
  private @Nullable String namespace;

  /** For subclasses. */
  protected OrchestratorContract() {}

  /**
   * The orchestrator to test, called before each test. It may hold objects of other namespaces, but
   * none in the namespace this test uses.
   */
  protected abstract Orchestrator newOrchestrator();

  /**
   * A name no other test uses, for a namespace: {@link #newNamespace()} creates it, and the tests
   * of {@link Orchestrator#createNamespace} and {@link Orchestrator#ensureNamespace} ask for names
   * of namespaces that do not exist yet. Override to remember the names (to delete those namespaces
   * after the tests).
   */
  protected String newNamespaceName() {
    return "tck-" + ProcessHandle.current().pid() + "-" + NAMESPACES.incrementAndGet();
  }

  /**
   * The test's namespace, called before each test: a namespace no other test uses, which exists and
   * is empty. Override to create it (by the cluster's own means, not the port under test).
   */
  protected String newNamespace() {
    return newNamespaceName();
  }

  /** Creates the orchestrator and the test's namespace. */
  @BeforeEach
  public final void createOrchestrator() {
    namespace = newNamespace();
    orchestrator = newOrchestrator();
  }

  /** The orchestrator under test. */
  protected final Orchestrator orchestrator() {
    if (orchestrator == null) {
      throw new IllegalStateException("the orchestrator is created before each test");
    }
    return orchestrator;
  }

  /** The test's namespace. */
  protected final String namespace() {
    if (namespace == null) {
      throw new IllegalStateException("the namespace is chosen before each test");
    }
    return namespace;
  }

  /** A ConfigMap of {@code name} in the test's namespace with {@code data}. */
  protected final Manifest configMap(String name, Map<String, String> data) {
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("name", name);
    metadata.put("namespace", namespace());
    return Manifest.of(
        Map.of("apiVersion", "v1", "kind", "ConfigMap", "metadata", metadata, "data", data));
  }

  /** An Opaque Secret of {@code name} in the test's namespace with base64 {@code data}. */
  protected final Manifest secret(String name, Map<String, String> data) {
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("name", name);
    metadata.put("namespace", namespace());
    return Manifest.of(
        Map.of(
            "apiVersion",
            "v1",
            "kind",
            "Secret",
            "metadata",
            metadata,
            "type",
            "Opaque",
            "data",
            data));
  }

  /**
   * A Deployment of one replica, selected by {@code app=<name>}, whose one container runs image.
   */
  protected final Manifest deployment(String name, String image) {
    Map<String, Object> container = Map.of("name", "main", "image", image);
    Map<String, Object> template =
        Map.of(
            "metadata",
            Map.of("labels", Map.of("app", name)),
            "spec",
            Map.of("containers", List.of(container)));
    return Manifest.of(
        Map.of(
            "apiVersion",
            "apps/v1",
            "kind",
            "Deployment",
            "metadata",
            Map.of("name", name, "namespace", namespace()),
            "spec",
            Map.of(
                "replicas",
                1,
                "selector",
                Map.of("matchLabels", Map.of("app", name)),
                "template",
                template)));
  }

  /** A Namespace of {@code name} with labels and annotations, as a release ensures one. */
  protected static Manifest namespaceManifest(
      String name, Map<String, String> labels, Map<String, String> annotations) {
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("name", name);
    metadata.put("labels", labels);
    if (!annotations.isEmpty()) {
      metadata.put("annotations", annotations);
    }
    return Manifest.of(Map.of("apiVersion", "v1", "kind", "Namespace", "metadata", metadata));
  }

  /** {@code owner}'s stamp at {@code revision}, for {@code object}. */
  protected static OwnershipStamp stamp(ReleaseIdentity owner, int revision, Manifest object) {
    return OwnershipStamp.of(owner, revision, ContentHash.of(object));
  }

  /** The one live object {@code ref} names, or empty when observe reports none. */
  protected final Optional<LiveObject> observeOne(ResourceRef ref) {
    List<LiveObject> found =
        orchestrator().observe(ref.kind(), ref.namespace(), Set.of(ref.name()));
    assertThat(found).as("observed %s", ref.key()).hasSizeLessThanOrEqualTo(1);
    return found.stream().findFirst();
  }

  /** The live object {@code ref} names, which must exist. */
  protected final LiveObject live(ResourceRef ref) {
    return observeOne(ref).orElseThrow(() -> new AssertionError(ref.key() + " is absent"));
  }

  private ResourceRef configMapRef(String name) {
    return ResourceRef.of(Kind.CONFIG_MAP, namespace(), name);
  }

  // -------------------------------------------------------------------- observe and apply

  /**
   * An applied object is observed with its content as applied (without the stamp), the stamp it was
   * applied with, no drift, and the uid and resourceVersion a later write is fenced on.
   */
  @Test
  public void appliedObjectIsObservedWithItsContentAndStamp() {
    Manifest settings = configMap("settings", Map.of("color", "blue", "size", "3"));
    OwnershipStamp stamp = stamp(OWNER, 1, settings);

    orchestrator().apply(settings, stamp);

    LiveObject live = live(settings.ref());
    assertThat(live.ref()).isEqualTo(settings.ref());
    assertThat(live.content()).isEqualTo(settings);
    assertThat(live.stamp()).isEqualTo(stamp);
    assertThat(live.drift()).isNull();
    assertThat(live.uid()).isNotBlank();
    assertThat(live.resourceVersion()).isNotBlank();
  }

  /** A Secret round-trips as a ConfigMap does: its type and base64 data as applied. */
  @Test
  public void appliedSecretIsObservedAsApplied() {
    Manifest creds = secret("creds", Map.of("password", "aHVudGVyMg=="));
    OwnershipStamp stamp = stamp(OWNER, 3, creds);

    orchestrator().apply(creds, stamp);

    LiveObject live = live(creds.ref());
    assertThat(live.content()).isEqualTo(creds);
    assertThat(live.stamp()).isEqualTo(stamp);
  }

  /**
   * Observe returns, of the names asked for, exactly those that exist (in any order), and nothing
   * for names nobody applied or for no names at all.
   */
  @Test
  public void observeReturnsOnlyTheObjectsThatExist() {
    Manifest a = configMap("alpha", Map.of("k", "a"));
    Manifest b = configMap("beta", Map.of("k", "b"));
    orchestrator().apply(a, stamp(OWNER, 1, a));
    orchestrator().apply(b, stamp(OWNER, 1, b));
    orchestrator().apply(configMap("gamma", Map.of("k", "c")), null);

    List<LiveObject> found =
        orchestrator().observe(Kind.CONFIG_MAP, namespace(), Set.of("alpha", "beta", "ghost"));

    assertThat(found).extracting(LiveObject::ref).containsExactlyInAnyOrder(a.ref(), b.ref());
    assertThat(orchestrator().observe(Kind.CONFIG_MAP, namespace(), Set.of("ghost", "phantom")))
        .isEmpty();
    assertThat(orchestrator().observe(Kind.SECRET, namespace(), Set.of("alpha"))).isEmpty();
    assertThat(orchestrator().observe(Kind.CONFIG_MAP, namespace(), Set.of())).isEmpty();
  }

  /**
   * Observe told that the owner's last record names the objects ({@link Orchestrator#observeOwned})
   * finds exactly what observe finds: the owner's objects, another release's and unowned ones under
   * those names as they are, and nothing for an absent name.
   */
  @Test
  public void observeOwnedFindsWhatObserveFinds() {
    Manifest alpha = configMap("alpha", Map.of("k", "a"));
    Manifest beta = configMap("beta", Map.of("k", "b"));
    Manifest gamma = configMap("gamma", Map.of("k", "c"));
    Manifest delta = configMap("delta", Map.of("k", "d"));
    Manifest mine = secret("mine", Map.of("k", "bWluZQ=="));
    Manifest theirs = secret("theirs", Map.of("k", "dGhlaXJz"));
    orchestrator().apply(alpha, stamp(OWNER, 1, alpha));
    orchestrator().apply(beta, stamp(OWNER, 1, beta));
    orchestrator().apply(gamma, stamp(OTHER, 1, gamma));
    orchestrator().apply(delta, null);
    orchestrator().apply(mine, stamp(OWNER, 1, mine));
    orchestrator().apply(theirs, stamp(OTHER, 1, theirs));

    Set<String> maps = Set.of("alpha", "beta", "gamma", "delta", "ghost");
    List<LiveObject> owned =
        orchestrator().observeOwned(Kind.CONFIG_MAP, namespace(), maps, Map.of(), OWNER);

    assertThat(owned)
        .extracting(LiveObject::ref)
        .containsExactlyInAnyOrder(alpha.ref(), beta.ref(), gamma.ref(), delta.ref());
    assertThat(owned)
        .containsExactlyInAnyOrderElementsOf(
            orchestrator().observe(Kind.CONFIG_MAP, namespace(), maps, Map.of()));
    assertThat(owned)
        .filteredOn(o -> o.ref().equals(gamma.ref()))
        .extracting(LiveObject::stamp)
        .containsExactly(stamp(OTHER, 1, gamma));
    assertThat(
            orchestrator()
                .observeOwned(
                    Kind.CONFIG_MAP, namespace(), Set.of("alpha", "beta"), Map.of(), OWNER))
        .containsExactlyInAnyOrder(live(alpha.ref()), live(beta.ref()));
    Set<String> secrets = Set.of("mine", "theirs");
    assertThat(orchestrator().observeOwned(Kind.SECRET, namespace(), secrets, Map.of(), OWNER))
        .containsExactlyInAnyOrderElementsOf(
            orchestrator().observe(Kind.SECRET, namespace(), secrets, Map.of()))
        .extracting(LiveObject::ref)
        .containsExactlyInAnyOrder(mine.ref(), theirs.ref());
  }

  /**
   * An orchestrator that {@linkplain Orchestrator#observesConcurrently observes concurrently}
   * answers observations sent at once from several threads as it answers them one after another.
   */
  @Test
  public void concurrentObservationsFindWhatObservationsInTurnFind() throws Exception {
    assumeTrue(orchestrator().observesConcurrently(), "observations come one after another");
    Manifest settings = configMap("settings", Map.of("k", "v"));
    Manifest creds = secret("creds", Map.of("k", "dg=="));
    orchestrator().apply(settings, stamp(OWNER, 1, settings));
    orchestrator().apply(creds, stamp(OWNER, 1, creds));
    List<Kind> kinds = List.of(Kind.CONFIG_MAP, Kind.SECRET, Kind.CONFIG_MAP, Kind.SECRET);
    Set<String> names = Set.of("settings", "creds", "ghost");
    List<List<LiveObject>> inTurn = new ArrayList<>();
    for (Kind kind : kinds) {
      inTurn.add(orchestrator().observe(kind, namespace(), names));
    }

    ExecutorService threads = Executors.newFixedThreadPool(kinds.size());
    try {
      CyclicBarrier start = new CyclicBarrier(kinds.size());
      List<Future<List<LiveObject>>> atOnce = new ArrayList<>();
      for (Kind kind : kinds) {
        atOnce.add(
            threads.submit(
                () -> {
                  start.await(WAIT.toSeconds(), TimeUnit.SECONDS);
                  return orchestrator().observe(kind, namespace(), names);
                }));
      }
      for (int i = 0; i < kinds.size(); i++) {
        assertThat(atOnce.get(i).get(WAIT.toSeconds(), TimeUnit.SECONDS))
            .as("observed %s at once", kinds.get(i).kind())
            .containsExactlyInAnyOrderElementsOf(inTurn.get(i));
      }
    } finally {
      threads.shutdownNow();
    }
  }

  /** An object applied without a stamp is unowned: observed with its content and no stamp. */
  @Test
  public void applyWithoutAStampWritesTheObjectUnowned() {
    Manifest settings = configMap("settings", Map.of("color", "blue"));

    orchestrator().apply(settings, null);

    LiveObject live = live(settings.ref());
    assertThat(live.content()).isEqualTo(settings);
    assertThat(live.stamp()).isNull();
  }

  /**
   * Applying again replaces the content and the stamp: the object keeps its uid and gets a new
   * resourceVersion; applied again without a stamp (an adopted object's pre-image restored), it is
   * unowned again.
   */
  @Test
  public void applyUpdatesContentAndStampKeepingTheUid() {
    Manifest first = configMap("settings", Map.of("color", "blue"));
    orchestrator().apply(first, stamp(OWNER, 1, first));
    LiveObject before = live(first.ref());
    Manifest second = configMap("settings", Map.of("color", "green", "size", "4"));

    orchestrator().apply(second, stamp(OWNER, 2, second));

    LiveObject after = live(first.ref());
    assertThat(after.content()).isEqualTo(second);
    assertThat(after.stamp()).isEqualTo(stamp(OWNER, 2, second));
    assertThat(after.uid()).isEqualTo(before.uid());
    assertThat(after.resourceVersion()).isNotEqualTo(before.resourceVersion());

    orchestrator().apply(first, null);

    LiveObject restored = live(first.ref());
    assertThat(restored.content()).isEqualTo(first);
    assertThat(restored.stamp()).isNull();
  }

  /** A create ({@link Precondition#absent()}) of an absent object creates it. */
  @Test
  public void createOfAnAbsentObjectCreatesIt() {
    Manifest settings = configMap("settings", Map.of("color", "blue"));

    orchestrator().apply(settings, stamp(OWNER, 1, settings), Precondition.absent());

    assertThat(live(settings.ref()).content()).isEqualTo(settings);
    assertThat(live(settings.ref()).stamp()).isEqualTo(stamp(OWNER, 1, settings));
  }

  /**
   * A create ({@link Precondition#absent()}) of an object that exists is fenced: it throws {@link
   * PreconditionFailedException} for the create, and the object keeps its content, stamp and
   * version.
   */
  @Test
  public void createOfAnExistingObjectIsFencedAndChangesNothing() {
    Manifest theirs = configMap("settings", Map.of("color", "blue"));
    orchestrator().apply(theirs, stamp(OTHER, 4, theirs));
    LiveObject before = live(theirs.ref());
    Manifest ours = configMap("settings", Map.of("color", "red"));

    assertThatThrownBy(
            () -> orchestrator().apply(ours, stamp(OWNER, 1, ours), Precondition.absent()))
        .isInstanceOfSatisfying(
            PreconditionFailedException.class,
            e -> {
              assertThat(e.ref()).isEqualTo(theirs.ref());
              assertThat(e.precondition()).isEqualTo(Precondition.absent());
              assertThat(e.operation()).isEqualTo("create");
            });

    assertThat(live(theirs.ref())).isEqualTo(before);
  }

  /** An update fenced on the object as observed ({@link Precondition#of}) lands. */
  @Test
  public void updateOnTheObservedVersionLands() {
    Manifest first = configMap("settings", Map.of("color", "blue"));
    orchestrator().apply(first, stamp(OWNER, 1, first));
    Precondition observed = Precondition.of(observeOne(first.ref()));
    assertThat(observed).isInstanceOf(Precondition.Observed.class);
    Manifest second = configMap("settings", Map.of("color", "green"));

    orchestrator().apply(second, stamp(OWNER, 2, second), observed);

    assertThat(live(first.ref()).content()).isEqualTo(second);
    assertThat(live(first.ref()).stamp()).isEqualTo(stamp(OWNER, 2, second));
  }

  /**
   * An update fenced on an observation the object has since changed from throws {@link
   * PreconditionFailedException} and writes nothing: the object stays as the later write left it.
   */
  @Test
  public void updateOnAStaleVersionIsFencedAndChangesNothing() {
    Manifest first = configMap("settings", Map.of("color", "blue"));
    orchestrator().apply(first, stamp(OWNER, 1, first));
    Precondition stale = Precondition.of(observeOne(first.ref()));
    Manifest meanwhile = configMap("settings", Map.of("color", "green"));
    orchestrator().apply(meanwhile, stamp(OTHER, 7, meanwhile));
    LiveObject before = live(first.ref());
    Manifest late = configMap("settings", Map.of("color", "red"));

    assertThatThrownBy(() -> orchestrator().apply(late, stamp(OWNER, 2, late), stale))
        .isInstanceOfSatisfying(
            PreconditionFailedException.class,
            e -> {
              assertThat(e.ref()).isEqualTo(first.ref());
              assertThat(e.precondition()).isEqualTo(stale);
              assertThat(e.operation()).isEqualTo("apply");
            });

    assertThat(live(first.ref())).isEqualTo(before);
    assertThat(before.content()).isEqualTo(meanwhile);
  }

  /**
   * An update fenced on an observation of an object deleted since throws {@link
   * PreconditionFailedException} and does not create it again.
   */
  @Test
  public void updateOfAnObjectGoneSinceItsObservationIsFenced() {
    Manifest first = configMap("settings", Map.of("color", "blue"));
    orchestrator().apply(first, stamp(OWNER, 1, first));
    Precondition observed = Precondition.of(observeOne(first.ref()));
    assertThat(orchestrator().delete(first.ref(), OWNER)).isTrue();
    Manifest late = configMap("settings", Map.of("color", "red"));

    assertThatThrownBy(() -> orchestrator().apply(late, stamp(OWNER, 2, late), observed))
        .isInstanceOfSatisfying(
            PreconditionFailedException.class,
            e -> assertThat(e.precondition()).isEqualTo(observed));

    assertThat(observeOne(first.ref())).isEmpty();
  }

  // --------------------------------------------------------------------------- dry run

  /**
   * A dry run returns the object as it would be stored (a ConfigMap: as applied, without the stamp)
   * and writes nothing: an absent object stays absent, an existing one keeps its content and
   * version.
   */
  @Test
  public void dryRunApplyReturnsTheObjectAndWritesNothing() {
    Manifest planned = configMap("planned", Map.of("color", "blue"));

    assertThat(orchestrator().dryRunApply(planned, stamp(OWNER, 1, planned))).isEqualTo(planned);
    assertThat(observeOne(planned.ref())).isEmpty();

    Manifest live = configMap("settings", Map.of("color", "blue"));
    orchestrator().apply(live, stamp(OWNER, 1, live));
    LiveObject before = live(live.ref());
    Manifest changed = configMap("settings", Map.of("color", "green"));

    assertThat(orchestrator().dryRunApply(changed, stamp(OWNER, 2, changed))).isEqualTo(changed);
    assertThat(live(live.ref())).isEqualTo(before);
  }

  // ---------------------------------------------------------------- delete and un-stamp

  /** Delete of an object its owner's stamp is on deletes it and says so. */
  @Test
  public void deleteOfAnOwnedObjectDeletesIt() {
    Manifest settings = configMap("settings", Map.of("color", "blue"));
    orchestrator().apply(settings, stamp(OWNER, 1, settings));

    assertThat(orchestrator().delete(settings.ref(), OWNER)).isTrue();

    assertThat(observeOne(settings.ref())).isEmpty();
  }

  /**
   * Delete of an object owned by another release, or by none, deletes nothing and returns {@code
   * false}: the object stays with its stamp (or none).
   */
  @Test
  public void deleteOfAnObjectNotOwnedByTheOwnerDeletesNothing() {
    Manifest theirs = configMap("theirs", Map.of("color", "blue"));
    orchestrator().apply(theirs, stamp(OTHER, 2, theirs));
    Manifest nobodys = configMap("nobodys", Map.of("color", "grey"));
    orchestrator().apply(nobodys, null);
    ReleaseIdentity sameNameOtherId = new ReleaseIdentity("tck", "web", "id-other");

    assertThat(orchestrator().delete(theirs.ref(), OWNER)).isFalse();
    assertThat(orchestrator().delete(theirs.ref(), sameNameOtherId)).isFalse();
    assertThat(orchestrator().delete(nobodys.ref(), OWNER)).isFalse();

    assertThat(live(theirs.ref()).stamp()).isEqualTo(stamp(OTHER, 2, theirs));
    assertThat(live(theirs.ref()).content()).isEqualTo(theirs);
    assertThat(live(nobodys.ref()).stamp()).isNull();
  }

  /** Delete of an absent object deletes nothing and returns {@code false}. */
  @Test
  public void deleteOfAnAbsentObjectReturnsFalse() {
    assertThat(orchestrator().delete(configMapRef("ghost"), OWNER)).isFalse();
    assertThat(orchestrator().delete(configMapRef("ghost"), OWNER, Precondition.none())).isFalse();
  }

  /** Delete fenced on the object as observed (the owner's stamp seen) deletes it. */
  @Test
  public void deleteOnTheObservedVersionDeletesIt() {
    Manifest settings = configMap("settings", Map.of("color", "blue"));
    orchestrator().apply(settings, stamp(OWNER, 1, settings));
    Precondition observed = Precondition.of(observeOne(settings.ref()));

    assertThat(orchestrator().delete(settings.ref(), OWNER, observed)).isTrue();

    assertThat(observeOne(settings.ref())).isEmpty();
  }

  /**
   * Delete fenced on an observation the object has since changed from throws {@link
   * PreconditionFailedException} and deletes nothing.
   */
  @Test
  public void deleteOnAStaleVersionIsFencedAndDeletesNothing() {
    Manifest settings = configMap("settings", Map.of("color", "blue"));
    orchestrator().apply(settings, stamp(OWNER, 1, settings));
    Precondition stale = Precondition.of(observeOne(settings.ref()));
    Manifest changed = configMap("settings", Map.of("color", "green"));
    orchestrator().apply(changed, stamp(OWNER, 2, changed));

    assertThatThrownBy(() -> orchestrator().delete(settings.ref(), OWNER, stale))
        .isInstanceOfSatisfying(
            PreconditionFailedException.class,
            e -> {
              assertThat(e.ref()).isEqualTo(settings.ref());
              assertThat(e.precondition()).isEqualTo(stale);
              assertThat(e.operation()).isEqualTo("delete");
            });

    assertThat(live(settings.ref()).content()).isEqualTo(changed);
  }

  /**
   * Un-stamp removes the owner's stamp and keeps the object and its data (returning {@code true});
   * a second un-stamp finds no stamp and returns {@code false}.
   */
  @Test
  public void unstampRemovesTheStampAndKeepsTheObject() {
    Manifest claim = configMap("kept", Map.of("data", "precious"));
    orchestrator().apply(claim, stamp(OWNER, 1, claim));
    String uid = live(claim.ref()).uid();

    assertThat(orchestrator().unstamp(claim.ref(), OWNER)).isTrue();

    LiveObject live = live(claim.ref());
    assertThat(live.stamp()).isNull();
    assertThat(live.content()).isEqualTo(claim);
    assertThat(live.uid()).isEqualTo(uid);
    assertThat(orchestrator().unstamp(claim.ref(), OWNER)).isFalse();
    assertThat(orchestrator().delete(claim.ref(), OWNER)).isFalse();
  }

  /**
   * Un-stamp of an object owned by another release, or of an absent one, changes nothing and
   * returns {@code false}.
   */
  @Test
  public void unstampOfAnObjectNotOwnedByTheOwnerChangesNothing() {
    Manifest theirs = configMap("theirs", Map.of("color", "blue"));
    orchestrator().apply(theirs, stamp(OTHER, 2, theirs));
    LiveObject before = live(theirs.ref());

    assertThat(orchestrator().unstamp(theirs.ref(), OWNER)).isFalse();
    assertThat(orchestrator().unstamp(configMapRef("ghost"), OWNER)).isFalse();

    assertThat(live(theirs.ref())).isEqualTo(before);
  }

  /** Un-stamp fenced on the object as observed removes the stamp and keeps the object. */
  @Test
  public void unstampOnTheObservedVersionRemovesTheStamp() {
    Manifest claim = configMap("kept", Map.of("data", "precious"));
    orchestrator().apply(claim, stamp(OWNER, 1, claim));
    Precondition observed = Precondition.of(observeOne(claim.ref()));

    assertThat(orchestrator().unstamp(claim.ref(), OWNER, observed)).isTrue();

    assertThat(live(claim.ref()).stamp()).isNull();
    assertThat(live(claim.ref()).content()).isEqualTo(claim);
  }

  /**
   * Un-stamp fenced on an observation the object has since changed from throws {@link
   * PreconditionFailedException} and writes nothing: the stamp stays.
   */
  @Test
  public void unstampOnAStaleVersionIsFencedAndKeepsTheStamp() {
    Manifest claim = configMap("kept", Map.of("data", "precious"));
    orchestrator().apply(claim, stamp(OWNER, 1, claim));
    Precondition stale = Precondition.of(observeOne(claim.ref()));
    Manifest changed = configMap("kept", Map.of("data", "more precious"));
    orchestrator().apply(changed, stamp(OWNER, 2, changed));

    assertThatThrownBy(() -> orchestrator().unstamp(claim.ref(), OWNER, stale))
        .isInstanceOfSatisfying(
            PreconditionFailedException.class,
            e -> {
              assertThat(e.ref()).isEqualTo(claim.ref());
              assertThat(e.operation()).isEqualTo("unstamp");
            });

    assertThat(live(claim.ref()).stamp()).isEqualTo(stamp(OWNER, 2, changed));
  }

  // -------------------------------------------------------------------------- waiting

  /**
   * Waiting for deleted objects finishes ready once they are gone, as it does for objects that
   * never existed and for none at all.
   */
  @Test
  public void awaitDeletedOfDeletedObjectsIsReady() {
    Manifest a = configMap("alpha", Map.of("k", "a"));
    Manifest b = secret("beta", Map.of("k", "Yg=="));
    orchestrator().apply(a, stamp(OWNER, 1, a));
    orchestrator().apply(b, stamp(OWNER, 1, b));
    assertThat(orchestrator().delete(a.ref(), OWNER)).isTrue();
    assertThat(orchestrator().delete(b.ref(), OWNER)).isTrue();

    assertThat(orchestrator().awaitDeleted(List.of(a.ref(), b.ref(), configMapRef("ghost")), WAIT))
        .isEqualTo(Readiness.ready());
    assertThat(orchestrator().awaitDeleted(List.of(), WAIT)).isEqualTo(Readiness.ready());
  }

  /** Waiting for the deletion of an object that stays times out naming it, after the timeout. */
  @Test
  public void awaitDeletedOfAnObjectThatStaysTimesOut() {
    Manifest stays = configMap("stays", Map.of("k", "v"));
    orchestrator().apply(stays, stamp(OWNER, 1, stays));
    Duration timeout = Duration.ofSeconds(1);

    Readiness result =
        orchestrator().awaitDeleted(List.of(stays.ref(), configMapRef("ghost")), timeout);

    assertThat(result)
        .isInstanceOfSatisfying(
            Readiness.TimedOut.class,
            t -> {
              assertThat(t.pending()).containsExactly(stays.ref());
              assertThat(t.after()).isEqualTo(timeout);
            });
  }

  /**
   * A ConfigMap and a Secret (kinds without a health rule) are ready once they exist; so is an
   * empty list.
   */
  @Test
  public void awaitReadyOfObjectsWithoutAHealthRuleIsReadyOnceTheyExist() {
    Manifest settings = configMap("settings", Map.of("k", "v"));
    Manifest creds = secret("creds", Map.of("k", "dg=="));
    orchestrator().apply(settings, stamp(OWNER, 1, settings));
    orchestrator().apply(creds, stamp(OWNER, 1, creds));

    assertThat(orchestrator().awaitReady(List.of(settings.ref(), creds.ref()), WAIT))
        .isEqualTo(Readiness.ready());
    assertThat(orchestrator().awaitReady(List.of(), WAIT)).isEqualTo(Readiness.ready());
  }

  /**
   * Waiting for a Deployment (a kind with a health rule) nobody applied fails at once, naming it:
   * not found.
   */
  @Test
  public void awaitReadyOfAnAbsentDeploymentFailsNotFound() {
    ResourceRef ghost = ResourceRef.of(Kind.DEPLOYMENT, namespace(), "ghost");

    Readiness result = orchestrator().awaitReady(List.of(ghost), WAIT);

    assertThat(result)
        .isInstanceOfSatisfying(
            Readiness.Failed.class,
            f -> {
              assertThat(f.object()).isEqualTo(ghost);
              assertThat(f.reason()).endsWith("not found");
            });
  }

  /** A Deployment whose pods run is ready once rolled out. */
  @Test
  public void awaitReadyOfARunnableDeploymentIsReady() {
    Manifest web = deployment("web", "registry.example/tck/web:1.0");
    orchestrator().apply(web, stamp(OWNER, 1, web));

    assertThat(orchestrator().awaitReady(List.of(web.ref()), WAIT)).isEqualTo(Readiness.ready());
  }

  /**
   * A Deployment whose image cannot be pulled ({@link #NEVER_READY_IMAGE}) fails, naming the
   * Deployment, before the timeout.
   */
  @Test
  public void awaitReadyOfADeploymentThatCannotStartFails() {
    Manifest broken = deployment("broken", NEVER_READY_IMAGE);
    orchestrator().apply(broken, stamp(OWNER, 1, broken));

    Readiness result = orchestrator().awaitReady(List.of(broken.ref()), WAIT);

    assertThat(result)
        .isInstanceOfSatisfying(
            Readiness.Failed.class, f -> assertThat(f.object()).isEqualTo(broken.ref()));
  }

  // ------------------------------------------------------------------------ namespaces

  /**
   * A created namespace exists, unowned (no stamp); creating it again leaves it as it is (its uid
   * unchanged).
   */
  @Test
  public void createNamespaceMakesAnUnownedNamespace() {
    String name = newNamespaceName();
    ResourceRef ref = ResourceRef.namespace(name);
    assertThat(observeOne(ref)).isEmpty();

    orchestrator().createNamespace(name);

    LiveObject live = live(ref);
    assertThat(live.ref()).isEqualTo(ref);
    assertThat(live.stamp()).isNull();
    assertThat(live.ensuredBy()).isEmpty();
    orchestrator().createNamespace(name);
    assertThat(live(ref).uid()).isEqualTo(live.uid());
  }

  /**
   * An ensured namespace is created when missing, unowned, with the labels and annotations the
   * release applied, and names the release that ensures it.
   */
  @Test
  public void ensureNamespaceCreatesItWithTheReleasesLabelsAndAnnotations() {
    String name = newNamespaceName();
    ResourceRef ref = ResourceRef.namespace(name);

    orchestrator()
        .ensureNamespace(
            namespaceManifest(name, Map.of("team", "blue"), Map.of("tck.capstan.dev/note", "hi")),
            "tck",
            "app");

    LiveObject live = live(ref);
    assertThat(live.stamp()).isNull();
    assertThat(live.labels()).containsEntry("team", "blue");
    assertThat(live.annotations()).containsEntry("tck.capstan.dev/note", "hi");
    assertThat(live.ensuredBy()).containsExactly("tck/app");
  }

  /**
   * Each release's ensure holds its own labels: another release's stay when one ensures again, and
   * a label a release applied before and no longer has is removed; both releases are named.
   */
  @Test
  public void ensureNamespaceKeepsOtherReleasesLabelsAndRemovesDroppedOnes() {
    String name = newNamespaceName();
    ResourceRef ref = ResourceRef.namespace(name);
    orchestrator()
        .ensureNamespace(
            namespaceManifest(name, Map.of("team", "blue", "tier", "gold"), Map.of()),
            "tck",
            "app");
    orchestrator()
        .ensureNamespace(namespaceManifest(name, Map.of("owner", "web"), Map.of()), "tck", "web");

    orchestrator()
        .ensureNamespace(namespaceManifest(name, Map.of("team", "blue"), Map.of()), "tck", "app");

    LiveObject live = live(ref);
    assertThat(live.labels())
        .containsEntry("team", "blue")
        .containsEntry("owner", "web")
        .doesNotContainKey("tier");
    assertThat(live.ensuredBy()).containsExactly("tck/app", "tck/web");
  }

  /** The test's own namespace is observed as existing, with a uid and version. */
  @Test
  public void observeOfANamespaceReportsIt() {
    LiveObject live = live(ResourceRef.namespace(namespace()));

    assertThat(requireNonNull(live.content(), "content").name()).isEqualTo(namespace());
    assertThat(live.uid()).isNotBlank();
    assertThat(live.resourceVersion()).isNotBlank();
    assertThat(observeOne(ResourceRef.namespace(newNamespaceName()))).isEmpty();
  }

  // ------------------------------------------------------------------------------ kinds

  /** Built-in kinds are served as the release has them; a kind no CRD defines is not, named. */
  @Test
  public void checkKindAcceptsBuiltInKindsAndNamesAnUnservedOne() {
    Kind widget = Kind.custom(namespace() + ".tck.capstan.dev", "v1", "Widget", true);

    assertThat(orchestrator().checkKind(Kind.CONFIG_MAP)).isEmpty();
    assertThat(orchestrator().checkKind(Kind.SECRET)).isEmpty();
    assertThat(orchestrator().checkKind(Kind.NAMESPACE)).isEmpty();
    assertThat(orchestrator().checkKind(Kind.DEPLOYMENT)).isEmpty();
    assertThat(orchestrator().checkKind(widget))
        .hasValueSatisfying(
            why -> assertThat(why).startsWith("the cluster does not serve " + widget.key()));
  }
}
