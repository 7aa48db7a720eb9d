package dev.capstan.update.catalog;

import dev.capstan.common.StrictMap;
import dev.capstan.update.InvalidCatalogException;
import dev.capstan.update.cluster.Workload;
import dev.capstan.update.internal.DocumentSyntaxException;
import dev.capstan.update.internal.Documents;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/** Reads catalog YAML or JSON strictly, collecting every problem with its path. */
final class CatalogReader {
  private static final Set<String> ROOT =
      StrictMap.fields(
          "platform",
          "manifestApiVersion",
          "metadata",
          "releaseBaseUrl",
          "installedCheck",
          "components",
          "preserved");
  private static final Set<String> METADATA = StrictMap.fields("domain", "partOf");
  private static final Set<String> INSTALLED = StrictMap.fields("namespace", "deployment", "hint");
  private static final Set<String> COMPONENT =
      StrictMap.fields(
          "name",
          "namespace",
          "deployment",
          "container",
          "envVar",
          "repository",
          "built",
          "optIn",
          "note",
          "versionPolicy",
          "versionPolicyHint");

  private CatalogReader() {}

  static Catalog read(byte[] bytes, String source) {
    Object tree;
    try {
      tree = Documents.readOne(bytes, Catalog.MAX_BYTES);
    } catch (DocumentSyntaxException e) {
      throw new InvalidCatalogException(source, List.of(e.getMessage()));
    }
    List<String> problems = new ArrayList<>();
    StrictMap root = StrictMap.open(tree, "", "the catalog", ROOT, problems);
    if (root == null) {
      throw new InvalidCatalogException(source, problems);
    }
    String platform = root.has("platform") ? root.string("platform") : "the platform";
    String apiVersion =
        root.has("manifestApiVersion")
            ? root.string("manifestApiVersion")
            : Catalog.DEFAULT_MANIFEST_API_VERSION;
    MetadataKeys metadata = metadata(root);
    InstalledCheck installed = installedCheck(root);
    String baseUrl = root.has("releaseBaseUrl") ? root.string("releaseBaseUrl") : null;
    List<CatalogComponent> components = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (StrictMap.Element e : root.objects("components", COMPONENT)) {
      names.add(e.map().string("name"));
      CatalogComponent c = component(e.map(), "components[" + e.index() + "].", problems);
      if (c != null) {
        components.add(c);
      }
    }
    List<String> preserved = root.strings("preserved");
    StrictMap.addPerField(problems, Catalog.problems(platform, apiVersion, baseUrl, names));
    if (!problems.isEmpty()) {
      throw new InvalidCatalogException(source, problems);
    }
    return new Catalog(platform, apiVersion, metadata, installed, baseUrl, components, preserved);
  }

  private static MetadataKeys metadata(StrictMap root) {
    MetadataKeys defaults = MetadataKeys.defaults();
    StrictMap m = root.object("metadata", METADATA);
    if (m == null) {
      return defaults;
    }
    String domain = m.has("domain") ? m.string("domain") : defaults.domain();
    String partOf = m.has("partOf") ? m.string("partOf") : defaults.partOf();
    boolean ok = true;
    if (!Workload.isSubdomain(domain)) {
      m.problem("domain", "must be a DNS-1123 subdomain", domain);
      ok = false;
    }
    if (!MetadataKeys.isLabelValue(partOf)) {
      m.problem("partOf", "must match " + MetadataKeys.LABEL_VALUE_RULE, partOf);
      ok = false;
    }
    return ok ? new MetadataKeys(domain, partOf) : defaults;
  }

  private static @Nullable InstalledCheck installedCheck(StrictMap root) {
    StrictMap m = root.object("installedCheck", INSTALLED);
    if (m == null) {
      return null;
    }
    Workload w = workload(m, m.string("namespace"), m.string("deployment"), true);
    String hint = m.has("hint") ? m.string("hint") : "check the kube context";
    return w == null ? null : new InstalledCheck(w, hint);
  }

  private static @Nullable Workload workload(
      StrictMap m, String namespace, String deployment, boolean required) {
    if (!required && namespace.isEmpty() && deployment.isEmpty()) {
      return null;
    }
    boolean ok = true;
    if (!Workload.isLabel(namespace)) {
      m.problem(
          "namespace",
          namespace.isEmpty() ? "is required" : "must match " + Workload.LABEL_RULE,
          namespace);
      ok = false;
    }
    if (!Workload.isSubdomain(deployment)) {
      m.problem(
          "deployment",
          deployment.isEmpty() ? "is required" : "must match " + Workload.SUBDOMAIN_RULE,
          deployment);
      ok = false;
    }
    return ok ? Workload.of(namespace, deployment) : null;
  }

  private static @Nullable CatalogComponent component(
      StrictMap m, String path, List<String> problems) {
    int before = problems.size();
    String name = m.string("name");
    String namespace = m.string("namespace");
    String deployment = m.string("deployment");
    Workload workload = workload(m, namespace, deployment, false);
    boolean hasWorkload = !namespace.isEmpty() || !deployment.isEmpty();
    String container = m.string("container");
    String envVar = m.has("envVar") ? m.string("envVar") : null;
    String repository = m.has("repository") ? m.string("repository") : null;
    boolean built = m.bool("built");
    String optIn = m.has("optIn") ? m.string("optIn") : null;
    String note = m.has("note") ? m.string("note") : null;
    VersionPolicy policy = policy(m);
    StrictMap.addPerField(
        problems,
        CatalogComponent.problems(
            path, name, hasWorkload, container, envVar, repository, optIn, note));
    if (problems.size() > before) {
      return null;
    }
    return new CatalogComponent(
        name, workload, container, envVar, repository, built, optIn, note, policy);
  }

  private static VersionPolicy policy(StrictMap m) {
    String label = m.has("versionPolicy") ? m.string("versionPolicy") : "any";
    String hint = m.string("versionPolicyHint");
    if (label.equals("same-minor")) {
      return VersionPolicy.sameMinor(hint);
    }
    if (!label.equals("any")) {
      m.problem("versionPolicy", "must be any or same-minor", label);
    } else if (m.has("versionPolicyHint")) {
      m.problem("versionPolicyHint", "needs versionPolicy same-minor", hint);
    }
    return VersionPolicy.any();
  }
}
