package dev.capstan.cli;

import dev.capstan.common.Escapes;
import dev.capstan.controller.ReleaseResourceController;
import dev.capstan.controller.Tenancy;
import dev.capstan.micrometer.ControllerMetrics;
import dev.capstan.micrometer.ReleaseMetrics;
import dev.capstan.release.model.DeleteGate;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/**
 * The options of {@code capstan controller run} that make a controller a platform team can run for
 * its tenants (docs/controller.md, "Tenants" and "Operating it"): whose rights each Release is cast
 * with, which references it may make, and the endpoints with their metrics.
 */
final class ControllerRunOptions {
  private static final Pattern ADDRESS =
      Pattern.compile("(\\d{1,3}(?:\\.\\d{1,3}){3}|\\[[0-9A-Fa-f:.]+\\]):(\\d{1,5})");

  @Option(
      names = "--default-service-account",
      paramLabel = "NAME",
      description =
          "Cast a Release that names no spec.serviceAccountName as this service account of its"
              + " namespace (Flux's lockdown), instead of with the controller's own rights.")
  @Nullable String defaultServiceAccount;

  @Option(
      names = "--require-service-account",
      description =
          "Refuse a Release that names no spec.serviceAccountName (and has no"
              + " --default-service-account): no Release is cast with the controller's rights.")
  boolean requireServiceAccount;

  @Option(
      names = "--no-cross-namespace-refs",
      description = "Refuse a Release whose spec.dependsOn names a Release of another namespace.")
  boolean noCrossNamespaceRefs;

  @Option(
      names = "--protected-kinds",
      paramLabel = "KINDS",
      split = ",",
      description =
          "The kinds ([group/]Kind) whose every delete a Release must approve by name in"
              + " spec.options.approveDeletes (default: Namespace, PersistentVolumeClaim,"
              + " PersistentVolume, apiextensions.k8s.io/CustomResourceDefinition; 'none' for"
              + " none).")
  @Nullable List<String> protectedKinds;

  @Option(
      names = "--delete-budget",
      paramLabel = "N|N%",
      description =
          "How many objects one cast of a Release may delete without approvals by name: a count"
              + " (10) or a share of the release's objects (20%%) (default: no limit).")
  @Nullable String deleteBudget;

  @Option(
      names = "--chart-repositories",
      paramLabel = "URL",
      split = ",",
      description =
          "Cast charts from these repositories only (https:// or oci:// URLs, comma-separated or"
              + " repeated): a Release whose spec.chart.repository is neither one nor under one is"
              + " refused before anything is fetched, and its chart's fetch reaches no private"
              + " address but these repositories' hosts (default: any).")
  List<String> chartRepositories = new ArrayList<>();

  @Option(
      names = "--http-address",
      paramLabel = "IP:PORT",
      description =
          "Serve /healthz, /readyz and /metrics (Prometheus) on this address, e.g. 127.0.0.1:8080,"
              + " or 0.0.0.0:8080 in a pod (default: none).")
  @Nullable String httpAddress;

  /**
   * The tenancy these options give.
   *
   * @throws IllegalArgumentException naming the option and its bad value
   */
  Tenancy tenancy() {
    Tenancy tenancy =
        Tenancy.open()
            .withServiceAccountRequired(requireServiceAccount)
            .withCrossNamespaceRefs(!noCrossNamespaceRefs);
    try {
      tenancy = tenancy.withChartRepositories(chartRepositories);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--chart-repositories: " + e.getMessage(), e);
    }
    String account = defaultServiceAccount;
    if (account != null) {
      try {
        tenancy = tenancy.withDefaultServiceAccount(account);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--default-service-account: " + e.getMessage(), e);
      }
    }
    return tenancy;
  }

  /**
   * Sets these options on {@code builder}; returns what they add to the start line ({@code ,
   * Releases cast as their service account, endpoints on 127.0.0.1:8080}).
   *
   * @throws IllegalArgumentException when an option's value is not valid
   */
  String apply(ReleaseResourceController.Builder builder) {
    builder.tenancy(tenancy());
    DeleteGate policy =
        DeleteGateOptions.policy(DeleteGate.defaults(), protectedKinds, deleteBudget);
    builder.deletePolicy(policy);
    List<String> said = new ArrayList<>();
    String account = defaultServiceAccount;
    if (account != null) {
      said.add("a Release naming no service account cast as " + account);
    } else if (requireServiceAccount) {
      said.add("every Release cast as the service account it names");
    }
    if (noCrossNamespaceRefs) {
      said.add("no reference to another namespace");
    }
    if (!policy.equals(DeleteGate.defaults())) {
      said.add(
          "deletes gated: protected kinds "
              + (policy.protectedKinds().isEmpty()
                  ? "none"
                  : String.join(", ", policy.protectedKinds()))
              + ", budget "
              + (policy.budget() == null ? "none" : String.valueOf(policy.budget())));
    }
    if (!chartRepositories.isEmpty()) {
      said.add("charts from " + String.join(", ", chartRepositories) + " only");
    }
    String address = httpAddress;
    if (address != null) {
      PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      builder
          .endpoints(address(address))
          .metrics(registry::scrape)
          .observer(ControllerMetrics.of(registry))
          .engine(b -> b.listener(ReleaseMetrics.of(registry)));
      said.add("/healthz, /readyz and /metrics on " + address);
    }
    return said.isEmpty() ? "" : ", " + String.join(", ", said);
  }

  /** An IP literal and a port: no name is resolved. */
  static InetSocketAddress address(String text) {
    Matcher m = ADDRESS.matcher(text);
    String rule =
        "--http-address must be an IP address and a port, such as 127.0.0.1:8080, 0.0.0.0:8080"
            + " or [::1]:8080: ";
    if (!m.matches()) {
      throw new IllegalArgumentException(rule + Escapes.quote(text));
    }
    int port = Integer.parseInt(m.group(2));
    if (port > 65535) {
      throw new IllegalArgumentException(rule + Escapes.quote(text));
    }
    String host = m.group(1);
    if (!host.startsWith("[")) {
      for (String octet : host.split("\\.", -1)) {
        if (Integer.parseInt(octet) > 255) {
          throw new IllegalArgumentException(rule + Escapes.quote(text));
        }
      }
    }
    try {
      // a literal: getByName parses it and asks no resolver
      return new InetSocketAddress(
          InetAddress.getByName(host.startsWith("[") ? host.substring(1, host.length() - 1) : host),
          port);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException(rule + Escapes.quote(text), e);
    }
  }
}
