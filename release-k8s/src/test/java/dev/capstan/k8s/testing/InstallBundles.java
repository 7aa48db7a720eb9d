package dev.capstan.k8s.testing;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.util.Base64;
import java.util.Locale;

/**
 * Install manifests in the shapes real projects publish them, as YAML text, generated rather than
 * committed: a node agent's (a Namespace document with {@code pod-security.kubernetes.io/enforce:
 * privileged}, a {@code kind: List}, a DaemonSet on the host network, RBAC in two namespaces), and
 * a bundle file of CustomResourceDefinitions near 1 MB each, past the 4 MiB a published operator
 * bundle reaches (4.3 MiB, its largest CRD 833 KB), and an operator whose CRD converts between two
 * versions through a webhook and whose kinds pass validating and mutating webhooks.
 */
public final class InstallBundles {
  private InstallBundles() {}

  /**
   * A CustomResourceDefinition of about {@code bytes} of YAML: a namespaced kind of group {@code
   * group}, served and stored at {@code v1}, whose schema holds long descriptions, as operators'
   * generated CRDs do (few fields with long text keep the API server's field tracking small).
   */
  public static String crd(String group, String kind, int bytes) {
    String plural = kind.toLowerCase(Locale.ROOT) + "s";
    StringBuilder yaml =
        new StringBuilder(
            """
            apiVersion: apiextensions.k8s.io/v1
            kind: CustomResourceDefinition
            metadata:
              name: PLURAL.GROUP
            spec:
              group: GROUP
              names: {kind: KIND, listKind: KINDList, plural: PLURAL, singular: SINGULAR}
              scope: Namespaced
              versions:
              - name: v1
                served: true
                storage: true
                schema:
                  openAPIV3Schema:
                    type: object
                    properties:
                      spec:
                        type: object
                        properties:
            """
                .replace("PLURAL", plural)
                .replace("SINGULAR", kind.toLowerCase(Locale.ROOT))
                .replace("GROUP", group)
                .replace("KIND", kind));
    String description =
        "Configures how the controller reconciles this part of the resource; see the project's"
            + " documentation for the defaults and the values accepted. ";
    for (int i = 0; yaml.length() < bytes; i++) {
      yaml.append("                  setting")
          .append(i)
          .append(":\n                    type: string\n                    description: \"")
          .append(description.repeat(4))
          .append("\"\n");
    }
    return yaml.toString();
  }

  /**
   * A bundle file of CRDs of group {@code group}, each about {@code crdBytes}, as many as it takes
   * to pass {@code fileBytes}; kinds {@code Kind0}, {@code Kind1}, ...
   *
   * @return the YAML text
   */
  public static String crdBundle(String group, int crdBytes, int fileBytes) {
    StringBuilder bundle = new StringBuilder();
    for (int i = 0; bundle.length() < fileBytes; i++) {
      bundle.append("---\n").append(crd(group, "Kind" + i, crdBytes));
    }
    return bundle.toString();
  }

  /** How many CRDs {@link #crdBundle} writes for these sizes. */
  public static int crdCount(String group, int crdBytes, int fileBytes) {
    int n = 0;
    for (int length = 0; length < fileBytes; n++) {
      length += 4 + crd(group, "Kind" + n, crdBytes).length();
    }
    return n;
  }

  /**
   * A node agent's install manifest: the Namespace {@code namespace} with the pod-security labels a
   * host-network DaemonSet needs, a {@code kind: List} of its ServiceAccount, ClusterRole and
   * ClusterRoleBinding, a Role and RoleBinding in {@code kube-system} (objects in several
   * namespaces), and the DaemonSet running {@code image}.
   */
  public static String nodeAgent(String namespace, String image) {
    return """
        apiVersion: v1
        kind: Namespace
        metadata:
          name: NS
          labels:
            pod-security.kubernetes.io/enforce: privileged
            pod-security.kubernetes.io/audit: privileged
            pod-security.kubernetes.io/warn: privileged
        ---
        apiVersion: v1
        kind: List
        items:
        - apiVersion: v1
          kind: ServiceAccount
          metadata: {name: agent, namespace: NS}
        - apiVersion: rbac.authorization.k8s.io/v1
          kind: ClusterRole
          metadata: {name: NS-agent}
          rules: [{apiGroups: [""], resources: [nodes], verbs: [get, list, watch]}]
        - apiVersion: rbac.authorization.k8s.io/v1
          kind: ClusterRoleBinding
          metadata: {name: NS-agent}
          roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: NS-agent}
          subjects: [{kind: ServiceAccount, name: agent, namespace: NS}]
        ---
        apiVersion: rbac.authorization.k8s.io/v1
        kind: Role
        metadata: {name: NS-agent, namespace: kube-system}
        rules: [{apiGroups: [""], resources: [configmaps], verbs: [get]}]
        ---
        apiVersion: rbac.authorization.k8s.io/v1
        kind: RoleBinding
        metadata: {name: NS-agent, namespace: kube-system}
        roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: NS-agent}
        subjects: [{kind: ServiceAccount, name: agent, namespace: NS}]
        ---
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: agent, namespace: NS}
        spec:
          selector: {matchLabels: {app.kubernetes.io/name: agent}}
          template:
            metadata: {labels: {app.kubernetes.io/name: agent}}
            spec:
              serviceAccountName: agent
              hostNetwork: true
              tolerations: [{operator: Exists}]
              containers:
              - name: agent
                image: IMAGE
                securityContext: {privileged: true}
        """
        .replace("NS", namespace)
        .replace("IMAGE", image);
  }

  /**
   * A webhook operator's install manifest: the CRD {@code widgets.GROUP}, served at {@code v1}
   * (stored) and {@code v2}, converted by a webhook at {@code https://127.0.0.1:PORT/convert}; a
   * ValidatingWebhookConfiguration ({@code GROUP-validating}, path {@code /validate}) and a
   * MutatingWebhookConfiguration ({@code GROUP-mutating}, path {@code /mutate}) for widgets on
   * create and update, failing closed; and the Widget {@code NS/first} of {@code spec.size} {@code
   * size}, written at {@code v2} so that each write and read of it is converted.
   *
   * @param caBundle the PEM of the webhooks' certificate (base64-encoded here)
   */
  public static String webhookOperator(
      String group, int port, String caBundle, String namespace, int size) {
    String schema =
        "{openAPIV3Schema: {type: object, properties: {spec: {type: object,"
            + " properties: {size: {type: integer}}}}}}";
    return """
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata: {name: widgets.GROUP}
        spec:
          group: GROUP
          names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
          scope: Namespaced
          conversion:
            strategy: Webhook
            webhook:
              conversionReviewVersions: [v1]
              clientConfig: {url: "https://127.0.0.1:PORT/convert", caBundle: CA}
          versions:
          - {name: v1, served: true, storage: true, schema: SCHEMA}
          - {name: v2, served: true, storage: false, schema: SCHEMA}
        ---
        VALIDATING---
        MUTATING---
        apiVersion: GROUP/v2
        kind: Widget
        metadata: {name: first, namespace: NS}
        spec: {size: SIZE}
        """
        .replace("SCHEMA", schema)
        .replace("VALIDATING", admissionWebhook("Validating", "validating", "validate"))
        .replace("MUTATING", admissionWebhook("Mutating", "mutating", "mutate"))
        .replace("NS", namespace)
        .replace("SIZE", Integer.toString(size))
        .replace("PORT", Integer.toString(port))
        .replace("GROUP", group)
        .replace("CA", Base64.getEncoder().encodeToString(caBundle.getBytes(UTF_8)));
  }

  /**
   * A {@code TYPEWebhookConfiguration} named {@code GROUP-SUFFIX} with one webhook for widgets on
   * create and update at {@code https://127.0.0.1:PORT/VERB}, failing closed; its placeholders are
   * {@link #webhookOperator}'s.
   */
  private static String admissionWebhook(String type, String suffix, String verb) {
    return """
        apiVersion: admissionregistration.k8s.io/v1
        kind: TYPEWebhookConfiguration
        metadata: {name: GROUP-SUFFIX}
        webhooks:
        - name: VERB.GROUP
          clientConfig: {url: "https://127.0.0.1:PORT/VERB", caBundle: CA}
          rules:
          - {apiGroups: [GROUP], apiVersions: ["*"], operations: [CREATE, UPDATE], resources: [widgets]}
          sideEffects: None
          admissionReviewVersions: [v1]
          failurePolicy: Fail
          timeoutSeconds: 10
        """
        .replace("TYPE", type)
        .replace("SUFFIX", suffix)
        .replace("VERB", verb);
  }
}
