package dev.capstan.controller;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import dev.capstan.common.StrictMap;
import dev.capstan.common.StrictMap.Wording;
import dev.capstan.common.Trees;
import dev.capstan.release.file.DeleteGates;
import dev.capstan.release.file.HealthRuleDocs;
import dev.capstan.release.file.HeapBudget;
import dev.capstan.release.file.ReleaseTooLargeException;
import dev.capstan.release.model.DriftIgnore;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.UninstallOptions;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * What a {@code Release}'s spec asks for, checked: the release name, where its objects come from,
 * the cast options, the interval, suspension, dependencies and what an uninstall does. {@link
 * #read} reports every problem of a spec together, each with its field path, the rule and the
 * value, the way a release file's problems are reported; a manifest or the chart's values nested
 * deeper than {@link Trees#MAX_DEPTH} levels is one of them, found without recursing (what the
 * informer holds of such a Release is clipped just below that depth: {@link ReleaseJson}).
 *
 * @param releaseName the release's name in Capstan's records
 * @param manifests the objects given inline, as trees
 * @param sources the ConfigMaps and Secrets whose values hold manifests, in order
 * @param chart the Helm chart whose rendering is the release, or null when the objects are
 *     manifests (a Release takes one or the other)
 * @param interval how often the release is planned again
 * @param suspend whether the controller leaves the release alone
 * @param dependsOn the Releases that must be Ready first
 * @param options the cast options
 * @param maxHistory how many revisions are kept
 * @param uninstall what deleting the Release does
 * @param account the service account the release is cast as, or null for the controller's own
 *     rights ({@link Tenancy})
 */
record ReleaseRequest(
    String releaseName,
    List<Object> manifests,
    List<Source> sources,
    @Nullable ChartSpec chart,
    Duration interval,
    boolean suspend,
    List<ReleaseKey> dependsOn,
    ReleaseOptions options,
    int maxHistory,
    UninstallOptions uninstall,
    Tenancy.@Nullable Account account) {

  /** The interval when the spec gives none. */
  static final Duration DEFAULT_INTERVAL = Duration.ofMinutes(5);

  /** The shortest interval a spec may give. */
  static final Duration MIN_INTERVAL = Duration.ofSeconds(1);

  /** The number of revisions kept when the spec gives none. */
  static final int DEFAULT_MAX_HISTORY = 10;

  /**
   * The longest duration a spec may write, in characters: the CRD's {@code maxLength}, checked
   * again here for an API server that serves an older CRD.
   */
  static final int MAX_DURATION_LENGTH = 64;

  /**
   * The most digits of one number of a duration ({@code 1.5} has two): more would name a longer
   * time than a duration holds, and cost a parse that grows with them.
   */
  static final int MAX_DURATION_DIGITS = 18;

  private static final String DURATION_RULE =
      "must be a positive duration such as 90s, 5m or 1h30m";

  private static final Pattern DURATION_PART = Pattern.compile("([0-9]+(?:\\.[0-9]+)?)(ms|s|m|h)");
  private static final Pattern LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

  private static final Set<String> SPEC =
      StrictMap.fields(
          "releaseName",
          "manifests",
          "manifestsFrom",
          "chart",
          "interval",
          "suspend",
          "dependsOn",
          "options",
          "uninstall",
          "serviceAccountName");
  private static final Set<String> SOURCE = StrictMap.fields("configMap", "secret");
  private static final Set<String> SOURCE_REF = StrictMap.fields("name", "key");
  private static final Set<String> DEPENDENCY = StrictMap.fields("name", "namespace");
  private static final Set<String> OPTIONS =
      StrictMap.fields(
          "adopt",
          "atomic",
          "createNamespace",
          "timeout",
          "maxHistory",
          "crdDeletion",
          "waitForLoadBalancer",
          "verifyOnServer",
          "driftIgnore",
          DeleteGates.APPROVE_DELETES,
          "healthRules");
  private static final Set<String> DRIFT_IGNORE =
      StrictMap.fields("kind", "name", "paths", "managers");
  private static final Set<String> UNINSTALL =
      StrictMap.fields("purge", "keepVolumes", "deleteNamespaces");

  /** A ConfigMap or Secret in the Release's namespace whose values hold manifests. */
  enum SourceKind {
    CONFIG_MAP("ConfigMap", "configmap", "configMap"),
    SECRET("Secret", "secret", "secret");

    private final String kind;
    private final String label;
    private final String field;

    SourceKind(String kind, String label, String field) {
      this.kind = kind;
      this.label = label;
      this.field = field;
    }

    /** The Kubernetes kind. */
    String kind() {
      return kind;
    }

    /** Its field in an entry of {@code spec.manifestsFrom}. */
    String field() {
      return field;
    }
  }

  /**
   * One entry of {@code spec.manifestsFrom}.
   *
   * @param kind ConfigMap or Secret
   * @param name its name, in the Release's namespace
   * @param key the one key to read, or null for every key in name order
   */
  record Source(SourceKind kind, String name, @Nullable String key) {
    Source {
      requireNonNull(kind, "kind");
      requireNonNull(name, "name");
    }

    /** How problems and the release's source name it: {@code configmap web-manifests}. */
    String label() {
      return kind.label + " " + name + (key == null ? "" : " key " + key);
    }
  }

  /** Copies the lists. */
  ReleaseRequest {
    requireNonNull(releaseName, "releaseName");
    manifests = List.copyOf(manifests);
    sources = List.copyOf(sources);
    dependsOn = List.copyOf(dependsOn);
    requireNonNull(interval, "interval");
    requireNonNull(options, "options");
    requireNonNull(uninstall, "uninstall");
  }

  /**
   * Reads and checks a Release's spec, with no tenancy rule ({@link Tenancy#open()}).
   *
   * @param release the Release
   * @return the request, when the spec is valid
   * @throws InvalidReleaseResourceException listing every problem, each with its path
   */
  static ReleaseRequest read(ReleaseResource release) {
    return read(release, Tenancy.open());
  }

  /**
   * The interval a Release's spec gives, read alone (its manifests are not read back): the default
   * when the spec or the interval is not valid.
   */
  static Duration intervalOf(ReleaseResource release) {
    List<String> problems = new ArrayList<>();
    StrictMap spec =
        StrictMap.open(release.spec(), "spec", "spec", SPEC, problems, Wording.LABELLED);
    if (spec == null) {
      return DEFAULT_INTERVAL;
    }
    Duration interval = duration(spec, "interval", DEFAULT_INTERVAL);
    return problems.isEmpty() ? interval : DEFAULT_INTERVAL;
  }

  /**
   * Reads and checks a Release's spec, and the account and references {@code tenancy} allows.
   *
   * @param release the Release
   * @param tenancy the controller's tenancy rules
   * @return the request, when the spec is valid
   * @throws InvalidReleaseResourceException listing every problem, each with its path
   */
  static ReleaseRequest read(ReleaseResource release, Tenancy tenancy) {
    return read(release, tenancy, HeapBudget.UNBOUNDED);
  }

  /**
   * As {@link #read(ReleaseResource, Tenancy)}, its inline manifests and chart values read back
   * from the text the informer holds them as within {@code budget} ({@link ReleaseJson#expanded}).
   *
   * @throws ReleaseTooLargeException when reading them back would take more than {@code budget}
   */
  static ReleaseRequest read(ReleaseResource release, Tenancy tenancy, HeapBudget budget) {
    List<String> problems = new ArrayList<>();
    Map<String, Object> written =
        ReleaseJson.expanded(release.spec(), budget, "Release " + release.key());
    StrictMap spec = StrictMap.open(written, "spec", "spec", SPEC, problems, Wording.LABELLED);
    if (spec == null) {
      throw new InvalidReleaseResourceException(release.key(), problems);
    }
    String releaseName = release.key().name();
    String given = spec.optionalString("releaseName");
    if (given != null) {
      if (!LABEL.matcher(given).matches() || given.length() > ReleaseSpec.MAX_NAME_LENGTH) {
        spec.problem(
            "releaseName",
            "must be a DNS-1123 label of at most " + ReleaseSpec.MAX_NAME_LENGTH + " characters",
            given);
      } else {
        releaseName = given;
      }
    }
    List<Object> manifests = new ArrayList<>();
    List<@Nullable Object> inline = spec.list("manifests");
    boolean tooDeep = false;
    for (int i = 0; i < inline.size(); i++) {
      Object m = inline.get(i);
      String problem = Trees.depthProblem(m, spec.field("manifests") + "[" + i + "]");
      if (problem != null) {
        problems.add(problem);
        tooDeep = true;
      } else if (m != null) {
        manifests.add(m);
      }
    }
    List<Source> sources = new ArrayList<>();
    List<Integer> sourceIndexes = new ArrayList<>();
    for (StrictMap.Element e : spec.objects("manifestsFrom", SOURCE)) {
      Source source = source(e.map());
      if (source == null) {
        continue;
      }
      String again = again(source, sources, sourceIndexes);
      if (again != null) {
        problems.add("spec.manifestsFrom[" + e.index() + "]: " + again);
        continue;
      }
      sources.add(source);
      sourceIndexes.add(e.index());
    }
    ChartSpec chart = null;
    StrictMap chartField = spec.object("chart", ChartSpec.FIELDS);
    if (chartField != null) {
      chart =
          ChartSpec.read(
              chartField,
              (Map<?, ?>) java.util.Objects.requireNonNull(written.get("chart")),
              release.key().namespace(),
              tenancy,
              problems);
      if (spec.has("manifests") || spec.has("manifestsFrom")) {
        problems.add(
            "spec.chart: a Release casts a chart or manifests, not both: remove spec.chart, or"
                + " spec.manifests and spec.manifestsFrom");
      }
    } else if (manifests.isEmpty() && sources.isEmpty() && !tooDeep) {
      problems.add("spec: give the objects in manifests, manifestsFrom or both, or a chart");
    }
    Duration interval = duration(spec, "interval", DEFAULT_INTERVAL);
    if (interval.compareTo(MIN_INTERVAL) < 0) {
      spec.problem("interval", "must be at least 1s", spec.optionalString("interval"));
    }
    List<ReleaseKey> dependsOn = new ArrayList<>();
    for (StrictMap.Element e : spec.objects("dependsOn", DEPENDENCY)) {
      String name = e.map().string("name");
      String namespace = e.map().optionalString("namespace");
      if (name.isEmpty()) {
        e.map().problem("name", "must name a Release", name);
        continue;
      }
      if (!tenancy.crossNamespaceRefs()
          && namespace != null
          && !namespace.equals(release.key().namespace())) {
        e.map()
            .problem(
                "namespace",
                "must be the Release's own namespace "
                    + release.key().namespace()
                    + " (this controller refuses references to other namespaces:"
                    + " --no-cross-namespace-refs)",
                namespace);
        continue;
      }
      dependsOn.add(
          new ReleaseKey(namespace == null ? release.key().namespace() : namespace, name));
    }
    // verified plans: on unless the Release is atomic or turns them off
    ReleaseOptions options = ReleaseOptions.defaults().withVerifyOnServer(true);
    int maxHistory = DEFAULT_MAX_HISTORY;
    StrictMap o = spec.object("options", OPTIONS);
    if (o != null) {
      options =
          options
              .withAdopt(o.bool("adopt"))
              .withAtomic(o.bool("atomic"))
              .withCreateNamespace(o.bool("createNamespace"))
              .withTimeout(duration(o, "timeout", ReleaseOptions.DEFAULT_TIMEOUT))
              .withWaitForLoadBalancer(
                  !o.has("waitForLoadBalancer") || o.bool("waitForLoadBalancer"))
              .withVerifyOnServer(
                  o.has("verifyOnServer") ? o.bool("verifyOnServer") : !o.bool("atomic"));
      List<DriftIgnore> rules = new ArrayList<>();
      for (StrictMap.Element e : o.objects("driftIgnore", DRIFT_IGNORE)) {
        StrictMap r = e.map();
        List<String> wrong =
            DriftIgnore.problems(
                r.string("kind"),
                r.optionalString("name"),
                r.strings("paths"),
                r.strings("managers"));
        wrong.forEach(w -> problems.add(o.field("driftIgnore") + "[" + e.index() + "]: " + w));
        if (wrong.isEmpty()) {
          rules.add(
              new DriftIgnore(
                  r.string("kind"),
                  r.optionalString("name"),
                  r.strings("paths"),
                  r.strings("managers")));
        }
      }
      options = options.withDriftIgnore(rules);
      options =
          options.withHealthRules(
              HealthRuleDocs.read(o.list("healthRules"), o.field("healthRules"), problems));
      // the policy is the controller's (CastStage); a Release carries approvals by name only
      options = options.withDeleteGate(DeleteGates.read(o, options.deleteGate(), false));
      Integer history = o.integer("maxHistory", false);
      if (history != null) {
        if (history < 1 || history > 1000) {
          o.problem("maxHistory", "must be from 1 to 1000", history);
        } else {
          maxHistory = history;
        }
      }
    }
    boolean deleteCrds = false;
    if (o != null) {
      String crdDeletion = o.optionalString("crdDeletion");
      if ("Delete".equals(crdDeletion)) {
        deleteCrds = true;
      } else if (crdDeletion != null && !"Keep".equals(crdDeletion)) {
        o.problem("crdDeletion", "must be Keep or Delete", crdDeletion);
      }
    }
    options = options.withAllowCrdDeletion(deleteCrds);
    UninstallOptions uninstall = UninstallOptions.defaults().withDeleteCrds(deleteCrds);
    StrictMap u = spec.object("uninstall", UNINSTALL);
    if (u != null) {
      uninstall =
          uninstall
              .withPurge(u.bool("purge"))
              .withKeepVolumes(u.bool("keepVolumes"))
              .withDeleteNamespaces(u.bool("deleteNamespaces"));
    }
    boolean suspend = spec.bool("suspend");
    String accountName = spec.optionalString("serviceAccountName");
    if (accountName != null && !Tenancy.validAccount(accountName)) {
      spec.problem(
          "serviceAccountName",
          "must be a DNS-1123 subdomain of at most 253 characters",
          accountName);
      accountName = null;
    } else if (accountName == null
        && tenancy.defaultServiceAccount() == null
        && tenancy.requireServiceAccount()) {
      problems.add(
          "spec.serviceAccountName: must name a service account of namespace "
              + release.key().namespace()
              + ": this controller casts no Release with its own rights"
              + " (--require-service-account)");
    }
    if (!problems.isEmpty()) {
      throw new InvalidReleaseResourceException(release.key(), problems);
    }
    return new ReleaseRequest(
        releaseName,
        manifests,
        sources,
        chart,
        interval,
        suspend,
        dependsOn,
        options,
        maxHistory,
        uninstall,
        tenancy.account(release.key().namespace(), accountName));
  }

  private static @Nullable Source source(StrictMap entry) {
    StrictMap configMap = entry.object("configMap", SOURCE_REF);
    StrictMap secret = entry.object("secret", SOURCE_REF);
    if ((configMap == null) == (secret == null)) {
      entry.problem("configMap", "give exactly one of configMap and secret", null);
      return null;
    }
    StrictMap ref = configMap != null ? configMap : secret;
    String name = ref.string("name");
    if (name.isEmpty()) {
      ref.problem("name", "must name a " + (configMap != null ? "ConfigMap" : "Secret"), name);
      return null;
    }
    return new Source(
        configMap != null ? SourceKind.CONFIG_MAP : SourceKind.SECRET,
        name,
        ref.optionalString("key"));
  }

  /**
   * Why {@code source} may not be read beside {@code earlier} (at {@code indexes}), or null: it
   * names an object again, with the same key, or one of the two without a key (every key): each
   * text is read once.
   */
  private static @Nullable String again(
      Source source, List<Source> earlier, List<Integer> indexes) {
    for (int i = 0; i < earlier.size(); i++) {
      Source first = earlier.get(i);
      String key = source.key();
      String firstKey = first.key();
      if (first.kind() != source.kind()
          || !first.name().equals(source.name())
          || (key != null && firstKey != null && !key.equals(firstKey))) {
        continue;
      }
      String at = "spec.manifestsFrom[" + indexes.get(i) + "]";
      return "names "
          + source.kind().kind()
          + " "
          + Escapes.escape(source.name())
          + (key == null ? "" : " key " + Escapes.quote(key))
          + " again ("
          + (firstKey == null && key != null
              ? at + " reads every key of it"
              : key == null && firstKey != null
                  ? at + " reads its key " + Escapes.quote(firstKey)
                  : at)
          + ")";
    }
    return null;
  }

  /**
   * A duration field written as Kubernetes writes them ({@code 90s}, {@code 5m}, {@code 1h30m},
   * {@code 1.5h}, {@code 500ms}); {@code fallback} when absent.
   */
  static Duration duration(StrictMap map, String key, Duration fallback) {
    String text = map.optionalString(key);
    if (text == null) {
      return fallback;
    }
    if (text.length() > MAX_DURATION_LENGTH) {
      map.problem(key, DURATION_RULE + ", of at most " + MAX_DURATION_LENGTH + " characters", text);
      return fallback;
    }
    Duration d = parseDuration(text);
    if (d == null) {
      map.problem(
          key,
          longestNumber(text) > MAX_DURATION_DIGITS
              ? DURATION_RULE + ", each number of at most " + MAX_DURATION_DIGITS + " digits"
              : DURATION_RULE,
          text);
      return fallback;
    }
    return d;
  }

  /**
   * The duration {@code text} writes, or null when it is not one (or not positive, or longer than
   * {@link #MAX_DURATION_LENGTH}, or a number of it has more than {@link #MAX_DURATION_DIGITS}
   * digits).
   */
  static @Nullable Duration parseDuration(String text) {
    if (text.length() > MAX_DURATION_LENGTH || longestNumber(text) > MAX_DURATION_DIGITS) {
      return null;
    }
    Matcher m = DURATION_PART.matcher(text);
    BigDecimal millis = BigDecimal.ZERO;
    int end = 0;
    while (m.find() && m.start() == end) {
      BigDecimal n = new BigDecimal(m.group(1));
      long unit =
          switch (m.group(2)) {
            case "h" -> 3_600_000L;
            case "m" -> 60_000L;
            case "s" -> 1_000L;
            default -> 1L;
          };
      millis = millis.add(n.multiply(BigDecimal.valueOf(unit)));
      end = m.end();
    }
    if (text.isEmpty() || end != text.length() || millis.signum() <= 0) {
      return null;
    }
    if (millis.compareTo(BigDecimal.valueOf(Long.MAX_VALUE / 2)) > 0) {
      return null;
    }
    return Duration.ofMillis(millis.longValue());
  }

  /** The most digits of one number in {@code text} ({@code 1.25h30m}: 3). */
  private static int longestNumber(String text) {
    int longest = 0;
    int digits = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c >= '0' && c <= '9') {
        digits++;
        longest = Math.max(longest, digits);
      } else if (c != '.') {
        digits = 0;
      }
    }
    return longest;
  }
}
