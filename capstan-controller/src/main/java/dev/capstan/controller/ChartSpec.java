package dev.capstan.controller;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import dev.capstan.common.StrictMap;
import dev.capstan.common.Trees;
import dev.capstan.helm.chart.MetadataServices;
import dev.capstan.release.chart.ChartReference;
import dev.capstan.release.chart.PrivateNetworks;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A Release's {@code spec.chart}, checked: the chart (a chart repository's {@code https://} URL and
 * the chart's name, or an {@code oci://} repository and the name), its version or range, its values
 * (inline and from ConfigMaps and Secrets of the Release's namespace, as Flux's HelmRelease takes
 * them), the Secrets holding the repository's credentials and CA, and whether its hooks are left
 * out. Everything it names is read as the Release's account ({@link ChartStage}). A repository at a
 * cloud's metadata service is refused ({@link #metadataService}), and so is one on the controller's
 * own machine when the controller serves tenants ({@link #ownMachine}), unless its chart
 * repositories name it.
 *
 * @param chart the chart
 * @param version exact, or a range as Helm reads it; null for the newest that is no pre-release
 * @param values the inline values, or an empty map
 * @param valuesFrom the values sources, merged in order before the inline values
 * @param secretRef the Secret holding {@code username} and {@code password}, or null
 * @param certSecretRef the Secret holding {@code ca.crt}, the CA to trust, or null
 * @param noHooks whether a chart with hooks is cast without them
 * @param networks which private addresses the chart's fetch may reach ({@link
 *     Tenancy#chartNetworks})
 */
record ChartSpec(
    ChartReference chart,
    @Nullable String version,
    Map<String, Object> values,
    List<ValuesSource> valuesFrom,
    @Nullable String secretRef,
    @Nullable String certSecretRef,
    boolean noHooks,
    PrivateNetworks networks) {

  /** The key of the CA in {@code certSecretRef}'s Secret, as Flux reads it. */
  static final String CA_KEY = "ca.crt";

  /** The keys of the credentials in {@code secretRef}'s Secret, as Flux reads them. */
  static final String USERNAME_KEY = "username";

  /** The password's key in {@code secretRef}'s Secret. */
  static final String PASSWORD_KEY = "password";

  /** The key of a values source read when it names none, as Flux reads it. */
  static final String DEFAULT_VALUES_KEY = "values.yaml";

  /**
   * The most bytes of values one chart is rendered with, its {@code valuesFrom} texts and its
   * inline values together: 4 MiB, many times the values file of the largest public charts (a few
   * hundred KB). Each is written to a file for Helm; the total is checked before any is.
   */
  static final int MAX_VALUES_BYTES = 4 << 20;

  static final Set<String> FIELDS =
      StrictMap.fields(
          "repository",
          "name",
          "version",
          "values",
          "valuesFrom",
          "secretRef",
          "certSecretRef",
          "noHooks");
  private static final Set<String> VALUES_FROM =
      StrictMap.fields("kind", "name", "namespace", "valuesKey", "optional");
  private static final Set<String> REF = StrictMap.fields("name", "namespace");
  private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9.]*[a-z0-9])?");

  /** Copies the values and the sources. */
  ChartSpec {
    requireNonNull(chart, "chart");
    requireNonNull(networks, "networks");
    values = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(values));
    valuesFrom = List.copyOf(valuesFrom);
  }

  /**
   * A ConfigMap or Secret of the Release's namespace holding values (YAML) under {@code key}.
   *
   * @param kind ConfigMap or Secret
   * @param name its name
   * @param key the key holding the values
   * @param optional whether a missing object or key is skipped rather than refused
   */
  record ValuesSource(ReleaseRequest.SourceKind kind, String name, String key, boolean optional) {
    ValuesSource {
      requireNonNull(kind, "kind");
      requireNonNull(name, "name");
      requireNonNull(key, "key");
    }
  }

  /**
   * Reads {@code spec.chart}, adding each problem to {@code chart}'s list.
   *
   * @param chart the field, opened strictly
   * @param raw the field as given (its {@code values} are free-form)
   * @param namespace the Release's namespace: every object it names is in it
   * @param tenancy the controller's tenancy: which chart repositories a Release may name
   * @param problems the spec's problems, which {@code chart} adds to
   * @return the chart, or null when it has a problem
   */
  static @Nullable ChartSpec read(
      StrictMap chart, Map<?, ?> raw, String namespace, Tenancy tenancy, List<String> problems) {
    int before = problems.size();
    String repository = chart.string("repository");
    String name = chart.string("name");
    ChartReference reference = reference(chart, repository, name, tenancy);
    String version = chart.optionalString("version");
    if (version != null && version.isBlank()) {
      chart.problem("version", "must not be blank: leave it out for the newest version", version);
    }
    Map<String, Object> values = new LinkedHashMap<>();
    Object inline = raw.get("values");
    String tooDeep = Trees.depthProblem(inline, chart.field("values"));
    if (tooDeep != null) {
      problems.add(tooDeep);
    } else if (inline instanceof Map<?, ?> m) {
      m.forEach((k, v) -> values.put(String.valueOf(k), v));
    } else if (inline != null) {
      chart.problem("values", "must be an object of values", inline.getClass().getSimpleName());
    }
    List<ValuesSource> valuesFrom = new ArrayList<>();
    List<Integer> valuesFromIndexes = new ArrayList<>();
    for (StrictMap.Element e : chart.objects("valuesFrom", VALUES_FROM)) {
      StrictMap s = e.map();
      String kind = s.string("kind");
      ReleaseRequest.SourceKind k =
          switch (kind) {
            case "ConfigMap" -> ReleaseRequest.SourceKind.CONFIG_MAP;
            case "Secret" -> ReleaseRequest.SourceKind.SECRET;
            default -> {
              s.problem("kind", "must be ConfigMap or Secret", kind);
              yield null;
            }
          };
      String source = objectName(s, namespace);
      String key = s.optionalString("valuesKey");
      if (key != null && key.isEmpty()) {
        s.problem("valuesKey", "must name a key (leave it out for values.yaml)", key);
      }
      if (k != null && source != null) {
        ValuesSource read =
            new ValuesSource(
                k,
                source,
                key == null || key.isEmpty() ? DEFAULT_VALUES_KEY : key,
                s.bool("optional"));
        int first = indexOf(valuesFrom, read);
        if (first >= 0) {
          problems.add(
              chart.field("valuesFrom")
                  + "["
                  + e.index()
                  + "]: names "
                  + kind
                  + " "
                  + Escapes.escape(source)
                  + " key "
                  + Escapes.quote(read.key())
                  + " again ("
                  + chart.field("valuesFrom")
                  + "["
                  + valuesFromIndexes.get(first)
                  + "])");
          continue;
        }
        valuesFrom.add(read);
        valuesFromIndexes.add(e.index());
      }
    }
    String secretRef = ref(chart, "secretRef", namespace);
    String certSecretRef = ref(chart, "certSecretRef", namespace);
    boolean noHooks = chart.bool("noHooks");
    if (reference == null || problems.size() > before) {
      return null;
    }
    return new ChartSpec(
        reference,
        version,
        values,
        valuesFrom,
        secretRef,
        certSecretRef,
        noHooks,
        tenancy.chartNetworks());
  }

  /**
   * Where {@code sources} holds one reading the same key of the same object as {@code source}
   * (whether optional or not), or -1: a text is read once.
   */
  private static int indexOf(List<ValuesSource> sources, ValuesSource source) {
    for (int i = 0; i < sources.size(); i++) {
      ValuesSource s = sources.get(i);
      if (s.kind() == source.kind()
          && s.name().equals(source.name())
          && s.key().equals(source.key())) {
        return i;
      }
    }
    return -1;
  }

  /** The chart a repository and a name make: {@code https://} and a name, or {@code oci://}. */
  private static @Nullable ChartReference reference(
      StrictMap chart, String repository, String name, Tenancy tenancy) {
    if (name.isEmpty()) {
      chart.problem("name", "must name the chart", name);
      return null;
    }
    if (ChartReference.holdsUserInfo(repository)) {
      chart.problem(
          "repository",
          "must not hold a user or password (USER:PASSWORD@): give them in spec.chart.secretRef"
              + " (a Secret with username and password)",
          ChartReference.withoutUserInfo(repository));
      return null;
    }
    String host = host(repository);
    if (host == null || !(repository.startsWith("https://") || repository.startsWith("oci://"))) {
      chart.problem(
          "repository",
          "must be a chart repository's https:// URL or an oci:// repository",
          repository);
      return null;
    }
    if (metadataService(host)) {
      chart.problem(
          "repository",
          "must not name a cloud's metadata service (a link-local address, fd00:ec2::254 or"
              + " 100.100.100.200): the controller fetches charts from its own network",
          repository);
      return null;
    }
    boolean listed = !tenancy.chartRepositories().isEmpty();
    if (tenancy.servesTenants()
        && ownMachine(host)
        && !(listed && tenancy.allowsChartRepository(repository))) {
      chart.problem(
          "repository",
          "must not be the controller's own machine (a loopback address, 0.0.0.0/8, [::] or"
              + " localhost) when the controller serves tenants: Helm reaches those directly, past"
              + " the controller's proxy and any NetworkPolicy, in the controller's own pod (a"
              + " repository there is allowed only when --chart-repositories names it)",
          repository);
      return null;
    }
    if (!tenancy.allowsChartRepository(repository)) {
      chart.problem(
          "repository",
          "must be one of this controller's chart repositories, or under one"
              + " (--chart-repositories): "
              + String.join(", ", tenancy.chartRepositories()),
          repository);
      return null;
    }
    try {
      if (repository.startsWith("oci://")) {
        String base =
            repository.endsWith("/")
                ? repository.substring(0, repository.length() - 1)
                : repository;
        return new ChartReference.Oci(base + "/" + name);
      }
      return new ChartReference.Repository(repository, name);
    } catch (IllegalArgumentException e) {
      chart.problem(
          "name",
          repository.startsWith("oci://")
              ? "with an oci:// repository, the repository and the name must make"
                  + " oci://HOST[:PORT]/PATH/NAME, lower-case, without a tag (give the version in"
                  + " version)"
              : "must be a chart's name in the repository's index ("
                  + ChartReference.NAME.pattern()
                  + ")",
          name);
      return null;
    }
  }

  /** The host of a URL, or null when it is no URL with a host. */
  private static @Nullable String host(String url) {
    try {
      URI uri = new URI(url);
      String host = uri.getHost();
      return host == null || host.isEmpty() ? null : host;
    } catch (URISyntaxException e) {
      return null;
    }
  }

  /**
   * Whether {@code host} is a literal address of a cloud's metadata service ({@link
   * MetadataServices}: link-local, with or without a zone, {@code [fe80::1%25eth0]} being the pod's
   * link; {@code fd00:ec2::254}; {@code 100.100.100.200}). An IPv4 address is read in every form a
   * C resolver reads ({@code inet_aton}: one to four parts, each decimal, octal {@code 0NN} or hex
   * {@code 0xNN}), since Helm built with cgo resolves {@code 0xa9fea9fe} or {@code
   * 0251.0376.0251.0376} to 169.254.169.254. A name is never looked up here: Helm reaches what it
   * resolves to through {@code EgressProxy}, which refuses the same addresses.
   */
  static boolean metadataService(String host) {
    long v4 = inetAton(host);
    try {
      if (v4 >= 0) {
        byte[] b = {(byte) (v4 >>> 24), (byte) (v4 >>> 16), (byte) (v4 >>> 8), (byte) v4};
        return MetadataServices.at(InetAddress.getByAddress(b)) != null;
      }
      String literal =
          host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
      int zone = literal.indexOf('%');
      if (zone >= 0 && literal.contains(":")) {
        literal = literal.substring(0, zone); // the address, whatever interface the zone names
      }
      if (!literal.matches("[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*")) {
        return false; // no IPv6 literal (IPv4 was read above): a name, never looked up here
      }
      return MetadataServices.at(InetAddress.getByName(literal)) != null;
    } catch (java.net.UnknownHostException e) {
      return false;
    }
  }

  /**
   * Whether {@code host} (as {@link URI#getHost} gives it) names the machine it is reached from:
   * {@code localhost} or a name under it ({@code .localhost}, RFC 6761), with or without a final
   * dot; a loopback address or one of "this host" ({@code 0.0.0.0/8}, {@code ::}), IPv4 in every
   * form {@code inet_aton} reads ({@code 2130706433}, {@code 0x7f.1}), IPv6 with or without a zone,
   * IPv4-mapped too. Helm's Go client sends requests for {@code localhost} and a loopback literal
   * directly, never to its proxy; {@code 0.0.0.0} and {@code ::} reach this machine's loopback. A
   * name is never looked up here.
   */
  static boolean ownMachine(String host) {
    String name = host.toLowerCase(java.util.Locale.ROOT);
    if (name.endsWith(".")) {
      name = name.substring(0, name.length() - 1);
    }
    if (name.equals("localhost") || name.endsWith(".localhost")) {
      return true;
    }
    long v4 = inetAton(name);
    if (v4 >= 0) {
      long first = v4 >>> 24;
      return first == 127 || first == 0;
    }
    String literal =
        name.startsWith("[") && name.endsWith("]") ? name.substring(1, name.length() - 1) : name;
    int zone = literal.indexOf('%');
    if (zone >= 0) {
      literal = literal.substring(0, zone);
    }
    if (!literal.matches("[0-9a-f:.]*:[0-9a-f:.]*")) {
      return false; // a name, never looked up here
    }
    try {
      InetAddress address = InetAddress.getByName(literal); // a literal: nothing is looked up
      return address.isLoopbackAddress() || address.isAnyLocalAddress();
    } catch (java.net.UnknownHostException e) {
      return false;
    }
  }

  /**
   * The IPv4 address {@code inet_aton} reads from {@code host}, as an unsigned 32-bit value, or -1
   * when it reads none: one to four dot-separated parts, each decimal, octal (a leading {@code 0})
   * or hex ({@code 0x}); the last part fills the bytes the others leave ({@code 127.1} is
   * 127.0.0.1, {@code 2852039166} is 169.254.169.254).
   */
  static long inetAton(String host) {
    String[] parts = host.split("\\.", -1);
    if (parts.length > 4) {
      return -1;
    }
    long address = 0;
    for (int i = 0; i < parts.length; i++) {
      long part = atonPart(parts[i]);
      boolean last = i == parts.length - 1;
      long max = last ? (1L << (8 * (4 - i))) - 1 : 255;
      if (part < 0 || part > max) {
        return -1;
      }
      address = last ? (address << (8 * (4 - i))) | part : (address << 8) | part;
    }
    return address;
  }

  /** One part of an {@code inet_aton} address, or -1 when it is none (or over 32 bits). */
  private static long atonPart(String part) {
    int radix = 10;
    String digits = part;
    if (part.length() > 2 && (part.startsWith("0x") || part.startsWith("0X"))) {
      radix = 16;
      digits = part.substring(2);
    } else if (part.length() > 1 && part.startsWith("0")) {
      radix = 8;
      digits = part.substring(1);
    }
    if (digits.isEmpty() || digits.length() > 11) {
      return -1;
    }
    long value = 0;
    for (int i = 0; i < digits.length(); i++) {
      int d = Character.digit(digits.charAt(i), radix);
      if (d < 0) {
        return -1;
      }
      value = value * radix + d;
    }
    return value > 0xFFFFFFFFL ? -1 : value;
  }

  /** A {@code {name, namespace}} reference's name, in {@code namespace} only; null when absent. */
  private static @Nullable String ref(StrictMap chart, String field, String namespace) {
    StrictMap ref = chart.object(field, REF);
    return ref == null ? null : objectName(ref, namespace);
  }

  /** The name of an object the chart reads, which must be in the Release's own namespace. */
  private static @Nullable String objectName(StrictMap ref, String namespace) {
    String name = ref.string("name");
    String in = ref.optionalString("namespace");
    if (in != null && !in.equals(namespace)) {
      ref.problem(
          "namespace",
          "must be the Release's own namespace "
              + namespace
              + ": a Release reads ConfigMaps and Secrets of its own namespace only, as its"
              + " service account",
          in);
      return null;
    }
    if (name.isEmpty() || name.length() > 253 || !NAME.matcher(name).matches()) {
      ref.problem("name", "must be a DNS-1123 subdomain of at most 253 characters", name);
      return null;
    }
    return name;
  }
}
