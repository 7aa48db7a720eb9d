package dev.capstan.controller;

import dev.capstan.common.Escapes;
import dev.capstan.common.InputLimits;
import dev.capstan.common.JsonMappers;
import dev.capstan.common.PrivateFolder;
import dev.capstan.release.chart.ChartException;
import dev.capstan.release.chart.ChartRequest;
import dev.capstan.release.chart.ChartValues;
import dev.capstan.release.chart.RepositoryAccess;
import dev.capstan.release.file.ChartRelease;
import dev.capstan.release.file.ChartReleases;
import dev.capstan.release.file.HeapBudget;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * A Release's chart rendered as its account: the values sources, the repository's credentials and
 * CA read with the account's rights ({@link ManifestSources}, one GET each), the private addresses
 * the fetch may reach as the tenancy says ({@link Tenancy#chartNetworks}), the chart fetched and
 * rendered by the account's renderer ({@link Engines.Engine#charts}: the account's capabilities,
 * {@code lookup} as the account), and read as every manifest is read ({@link ChartReleases}). The
 * values are merged as Flux merges a HelmRelease's: the {@code valuesFrom} sources in order, then
 * the inline {@code values}; those from a Secret are recorded masked. Together they are held to
 * {@link ChartSpec#MAX_VALUES_BYTES} as each is read, before any is written for Helm (a source
 * named twice is refused before, by {@link ChartSpec#read}). A chart's hooks are the release's
 * hooks, run by its casts as the account ({@code noHooks}: cast without them, see {@code
 * CastStage}). The rendered output is read within the Release's {@link HeapBudget} ({@link
 * ReleaseHeap}).
 */
final class ChartStage {
  private ChartStage() {}

  /**
   * The release {@code request}'s chart renders.
   *
   * @param key the Release
   * @param request its checked spec, with a chart
   * @param engine its account's engines
   * @param upgrade whether the release exists already ({@code .Release.IsUpgrade})
   * @param budget the heap the Release may take, its rendered output read within it
   * @return the rendered chart, as a release
   * @throws InvalidReleaseResourceException when a source, key or Secret it names is missing
   * @throws ChartException when the chart cannot be fetched or rendered
   * @throws dev.capstan.release.file.InvalidReleaseFileException when what it rendered is not valid
   * @throws dev.capstan.common.ClusterException when a read fails
   * @throws dev.capstan.release.file.ReleaseTooLargeException when reading what it rendered would
   *     take more than the budget
   */
  static ChartRelease render(
      ReleaseKey key,
      ReleaseRequest request,
      Engines.Engine engine,
      boolean upgrade,
      HeapBudget budget) {
    ChartSpec chart = java.util.Objects.requireNonNull(request.chart(), "chart");
    List<String> problems = new ArrayList<>();
    ChartValues values = ChartValues.none();
    String inline = chart.values().isEmpty() ? null : json(chart.values());
    long total = 0;
    if (inline != null) {
      total = valuesBytes(0, inline, "spec.chart.values", problems);
    }
    for (int i = 0; i < chart.valuesFrom().size() && total >= 0; i++) {
      ChartSpec.ValuesSource source = chart.valuesFrom().get(i);
      String at = "spec.chart.valuesFrom[" + i + "]";
      Map<String, String> data = read(engine.sources(), key, source.kind(), source.name());
      String named = at + ": " + source.kind().kind() + " " + key.namespace() + "/" + source.name();
      if (data == null) {
        if (!source.optional()) {
          problems.add(named + " does not exist (optional: true skips it)");
        }
        continue;
      }
      String text = data.get(source.key());
      if (text == null) {
        if (!source.optional()) {
          problems.add(named + " has no key " + Escapes.quote(source.key()) + keys(data));
        }
        continue;
      }
      String label = named + " key " + source.key();
      total = valuesBytes(total, text, label, problems);
      if (total < 0) {
        break; // nothing more is read, nor this text kept
      }
      values =
          source.kind() == ReleaseRequest.SourceKind.SECRET
              ? values.withSecretFile(label, text)
              : values.withFile(label, text);
    }
    if (inline != null) {
      values = values.withFile("spec.chart.values", inline);
    }
    RepositoryAccess access = RepositoryAccess.anonymous().withPrivateNetworks(chart.networks());
    String secretRef = chart.secretRef();
    if (secretRef != null) {
      Map<String, String> secret = engine.sources().secret(key.namespace(), secretRef);
      String named = "spec.chart.secretRef: Secret " + key.namespace() + "/" + secretRef;
      if (secret == null) {
        problems.add(named + " does not exist");
      } else if (secret.get(ChartSpec.USERNAME_KEY) == null
          || secret.get(ChartSpec.PASSWORD_KEY) == null) {
        problems.add(
            named
                + " must hold the keys "
                + ChartSpec.USERNAME_KEY
                + " and "
                + ChartSpec.PASSWORD_KEY
                + keys(secret));
      } else {
        String username = secret.get(ChartSpec.USERNAME_KEY).strip();
        if (username.isEmpty() || username.contains(":")) {
          // never quoted: "bob:hunter2" is the common mistake, a password in the username
          problems.add(
              named
                  + ": key "
                  + ChartSpec.USERNAME_KEY
                  + " must be a user's name, not empty and without ':' (it separates user and"
                  + " password in Basic authentication; the password goes under the key "
                  + ChartSpec.PASSWORD_KEY
                  + ") "
                  + Escapes.NOT_SHOWN);
        } else {
          access = access.withCredentials(username, secret.get(ChartSpec.PASSWORD_KEY).strip());
        }
      }
    }
    String ca = null;
    String certSecretRef = chart.certSecretRef();
    if (certSecretRef != null) {
      Map<String, String> secret = engine.sources().secret(key.namespace(), certSecretRef);
      String named = "spec.chart.certSecretRef: Secret " + key.namespace() + "/" + certSecretRef;
      if (secret == null) {
        problems.add(named + " does not exist");
      } else if (secret.get(ChartSpec.CA_KEY) == null) {
        problems.add(named + " has no key " + ChartSpec.CA_KEY + keys(secret));
      } else {
        ca = secret.get(ChartSpec.CA_KEY);
      }
    }
    if (!problems.isEmpty()) {
      throw new InvalidReleaseResourceException(key, problems);
    }
    ChartRelease release;
    try (PrivateFolder folder = PrivateFolder.create(null, "capstan-chart-")) {
      if (ca != null) {
        access = access.withCaFile(folder.write("ca.crt", ca).toString());
      }
      ChartRequest chartRequest =
          ChartRequest.of(chart.chart(), key.namespace(), request.releaseName())
              .withVersion(chart.version())
              .withValues(values)
              .withRepository(access)
              .withUpgrade(upgrade);
      release = ChartReleases.render(engine.charts(), chartRequest, budget);
    } catch (ChartException e) {
      throw new ChartException(
          forTheSpec(String.valueOf(e.getMessage()), secretRef, access.username()), e);
    }
    return release;
  }

  /**
   * A renderer's message with the command line's advice made the Release's: the credentials are
   * given in {@code spec.chart.secretRef}, not with {@code --username} and {@code
   * --password-stdin}; and without the user's name, which the command line's user typed but the
   * Release's reader may not see (it is a value of the Secret).
   */
  static String forTheSpec(String message, @Nullable String secretRef, @Nullable String username) {
    String secret =
        secretRef == null
            ? "spec.chart.secretRef (a Secret with username and password)"
            : "the username and password of spec.chart.secretRef (Secret " + secretRef + ")";
    String shown =
        username == null
            ? message
            : message.replace(
                " refused the credentials of user " + Escapes.quote(username),
                " refused the credentials");
    return shown
        .replace("check --username and the password given with --password-stdin", "check " + secret)
        .replace("give --username and --password-stdin", "give them in " + secret);
  }

  /**
   * The bytes of values read once {@code text} is, or -1 when that is over {@link
   * ChartSpec#MAX_VALUES_BYTES} (the problem added, naming {@code label}).
   */
  private static long valuesBytes(long total, String text, String label, List<String> problems) {
    long size = text.getBytes(StandardCharsets.UTF_8).length;
    if (total + size <= ChartSpec.MAX_VALUES_BYTES) {
      return total + size;
    }
    problems.add(
        label
            + ": the chart's values would total "
            + (total + size)
            + " bytes with this one ("
            + size
            + " bytes); the limit is "
            + ChartSpec.MAX_VALUES_BYTES
            + " bytes ("
            + InputLimits.human(ChartSpec.MAX_VALUES_BYTES)
            + ") per release");
    return -1;
  }

  private static @Nullable Map<String, String> read(
      ManifestSources sources, ReleaseKey key, ReleaseRequest.SourceKind kind, String name) {
    return kind == ReleaseRequest.SourceKind.CONFIG_MAP
        ? sources.configMap(key.namespace(), name)
        : sources.secret(key.namespace(), name);
  }

  /** {@code ; it has a, b}: the keys an object holds, never a value. */
  private static String keys(Map<String, String> data) {
    return data.isEmpty()
        ? "; it has none"
        : "; it has "
            + new TreeMap<>(data)
                .keySet().stream().map(Escapes::escape).collect(Collectors.joining(", "));
  }

  private static String json(Map<String, Object> values) {
    try {
      return JsonMappers.trees().writeValueAsString(values);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("values read from JSON are written as JSON", e);
    }
  }
}
