package dev.capstan.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Options of the subcommands that read a release file. */
final class FileOptions {
  @Parameters(
      index = "0",
      arity = "0..1",
      paramLabel = "NAME",
      description = "The release name (default: the release file's; required for manifests).")
  @Nullable String name;

  @Option(
      names = {"-f", "--file", "--values"},
      paramLabel = "FILE|DIR",
      description =
          "A release file, or plain Kubernetes manifests: a YAML/JSON file (multi-document),"
              + " a directory of them or a glob such as 'k8s/*.yaml'. With --chart, a values file"
              + " instead (repeatable; a later one wins).")
  List<Path> files = new ArrayList<>();

  @Option(
      names = "--release",
      paramLabel = "NAME",
      description = "The release name (same as NAME).")
  @Nullable String release;

  /**
   * The one release file or manifests {@code -f} names (without {@code --chart}).
   *
   * @throws IllegalArgumentException when none, or more than one, is given
   */
  Path releaseFile() {
    if (files.size() != 1) {
      throw new IllegalArgumentException(
          files.isEmpty()
              ? "give the release: -f FILE (a release file or manifests), or --chart REF"
              : "-f names one release file or manifests (a directory or a glob for several);"
                  + " several -f are values files, with --chart");
    }
    return files.get(0);
  }

  @Option(names = "--adopt", description = "Take ownership of existing objects no release owns.")
  boolean adopt;

  @Option(names = "--atomic", description = "On failure, revert this revision's changes.")
  boolean atomic;

  @Option(
      names = "--verify",
      negatable = true,
      description =
          "Send every object the plan writes to the API server as a dry run before the first"
              + " write, so that what it refuses (validation, admission, quota, an immutable"
              + " field) is a conflict of the plan and nothing is written (one request per written"
              + " object). On by default unless --atomic; --no-verify turns it off.")
  @Nullable Boolean verify;

  @Option(
      names = "--create-namespace",
      description =
          "Create referenced namespaces that do not exist, the release's own (which holds its"
              + " record and lease) included.")
  boolean createNamespace;

  @Option(
      names = "--allow-crd-deletion",
      description =
          "Let a prune delete CRDs the release no longer wants (deletes every custom resource"
              + " of them, cluster-wide).")
  boolean allowCrdDeletion;

  @Option(
      names = "--dangerous-allow-empty",
      description =
          "Let a file that holds no object (no spec, truncated, an empty directory) prune every"
              + " object the release owns; without it such a cast is refused (exit 2).")
  boolean dangerousAllowEmpty;

  @Option(
      names = "--allow-unsafe-crd-changes",
      description =
          "Apply a CRD change that breaks objects stored at it (a stored version no longer"
              + " served, the storage version changed without a path, a schema narrowed);"
              + " refused otherwise, before any write. A stored version removed stays refused.")
  boolean allowUnsafeCrdChanges;

  @Option(
      names = "--no-record-secret-values",
      description =
          "Keep Secrets' values out of the release record (it keeps their keys and keyed"
              + " hashes); a rollback to this revision then needs them again (release rollback"
              + " --secrets).")
  boolean noRecordSecretValues;

  @Option(
      names = "--health-rules",
      paramLabel = "FILE",
      description =
          "Health rules in CEL (a YAML list of {kind, current, inProgress, failed}), asked before"
              + " the release file's, the shipped defaults and the built-in rules; checked before"
              + " anything is written (docs/health-rules.md).")
  @Nullable Path healthRules;

  @Option(
      names = "--no-wait-for-load-balancer",
      description =
          "Count a LoadBalancer Service healthy once it exists, not once it has an address"
              + " (for a cluster without a load balancer controller).")
  boolean noWaitForLoadBalancer;
}
