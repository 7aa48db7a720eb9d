package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import io.kubernetes.client.apimachinery.GroupVersionKind;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.CoreV1Event;
import io.kubernetes.client.openapi.models.EventsV1Event;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.util.ModelMapper;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * {@link Int32Fields}: a number beyond 32 bits at a field client-java's model types as a 32-bit
 * integer is a problem naming the object, the path, the rule and the value; a 64-bit field, a
 * quantity, a field the model lacks and a kind without a model are not.
 */
class Int32FieldsTest {

  private static Manifest deployment(Object replicas, Object runAsUser, Object port) {
    return Manifest.of(
        Map.of(
            "apiVersion",
            "apps/v1",
            "kind",
            "Deployment",
            "metadata",
            Map.of("name", "web", "namespace", "shop"),
            "spec",
            Map.of(
                "replicas",
                replicas,
                "template",
                Map.of(
                    "spec",
                    Map.of(
                        "securityContext",
                        Map.of("runAsUser", runAsUser),
                        "unknownField",
                        4294967298L,
                        "containers",
                        List.of(
                            Map.of("name", "a", "image", "a"),
                            Map.of(
                                "name",
                                "b",
                                "image",
                                "b",
                                "ports",
                                List.of(Map.of("containerPort", port)),
                                "resources",
                                Map.of("limits", Map.of("memory", 8589934592L)))))))));
  }

  @Test
  void aNumberBeyond32BitsAtAnInt32FieldIsNamedWithItsPath() {
    assertThat(Int32Fields.check(deployment(4294967298L, 1000, 8080)))
        .contains("Deployment shop/web: spec.replicas " + Int32Fields.RULE + ": 4294967298");
    assertThat(Int32Fields.check(deployment(3, 1000, new BigInteger("-2147483649"))))
        .contains(
            "Deployment shop/web: spec.template.spec.containers[1].ports[0].containerPort "
                + Int32Fields.RULE
                + ": -2147483649");
  }

  @Test
  void everyNumberBeyond32BitsIsNamed() {
    assertThat(
            Int32Fields.check(deployment(4294967298L, 1000, new BigDecimal("4294967296.0")))
                .orElseThrow()
                .split("; "))
        .containsExactlyInAnyOrder(
            "Deployment shop/web: spec.replicas " + Int32Fields.RULE + ": 4294967298",
            "Deployment shop/web: spec.template.spec.containers[1].ports[0].containerPort "
                + Int32Fields.RULE
                + ": 4294967296.0");
  }

  @Test
  void sixtyFourBitFieldsQuantitiesUnknownFieldsAndNumbersWithin32BitsPass() {
    // runAsUser is an int64, memory a quantity, unknownField not in the model, the label a string
    // field the server refuses by type on its own
    assertThat(Int32Fields.check(deployment(2147483647, 4294967298L, -2147483648))).isEmpty();
    // beyond 64 bits is ApiServerLimits' refusal, named once
    assertThat(
            Int32Fields.check(
                deployment(new BigInteger("123456789012345678901234567890"), 1000, 80)))
        .isEmpty();
  }

  @Test
  void anIntOrStringFieldIs32Bits() {
    Manifest service =
        Manifest.of(
            Map.of(
                "apiVersion",
                "v1",
                "kind",
                "Service",
                "metadata",
                Map.of("name", "web", "namespace", "shop"),
                "spec",
                Map.of("ports", List.of(Map.of("port", 80, "targetPort", 4294967377L)))));
    assertThat(Int32Fields.check(service))
        .contains(
            "Service shop/web: spec.ports[0].targetPort " + Int32Fields.RULE + ": 4294967377");
  }

  @Test
  void aCustomResourceAndAKindOfAnotherGroupHaveNoModel() {
    Manifest widget =
        Manifest.of(
            Map.of(
                "apiVersion",
                "example.com/v1",
                "kind",
                "Deployment",
                "metadata",
                Map.of("name", "w", "namespace", "shop"),
                "spec",
                Map.of("replicas", 4294967298L)));
    assertThat(Int32Fields.check(widget)).isEmpty();
    assertThat(Int32Fields.model(Kind.custom("gateway.networking.k8s.io", "v1", "Gateway", true)))
        .isEmpty();
  }

  @Test
  void kindsSharingANameAcrossGroupsGetTheirGroupsModels() {
    assertThat(Int32Fields.model(Kind.custom("", "v1", "Event", true))).contains(CoreV1Event.class);
    assertThat(Int32Fields.model(Kind.custom("events.k8s.io", "v1", "Event", true)))
        .contains(EventsV1Event.class);
    assertThat(Int32Fields.model(Kind.custom("apps", "v1", "Deployment", true)))
        .contains(V1Deployment.class);
  }

  /**
   * Every kind client-java maps to a model resolves to that model by the name rule. (client-java
   * reads its own class names, so a group is known only where a name carries one: the server's
   * groups are checked against discovery, {@code BuiltInKindsIT}.)
   */
  @Test
  void theNameRuleFindsEveryModelClientJavaMaps() {
    List<String> wrong = new ArrayList<>();
    Set<String> groups = new TreeSet<>();
    int checked = 0;
    for (Class<?> model : modelClasses()) {
      GroupVersionKind gvk = ModelMapper.preBuiltGetGroupVersionKindByClass(model).orElse(null);
      if (gvk == null || !Character.isUpperCase(gvk.getKind().charAt(0))) {
        continue; // client-java parses its class names: V1alpha2LeaseCandidate as v1
      }
      checked++;
      groups.add(gvk.getGroup());
      Kind kind = Kind.custom(gvk.getGroup(), gvk.getVersion(), gvk.getKind(), true);
      if (!Int32Fields.model(kind).equals(java.util.Optional.of(model))) {
        wrong.add(kind.key() + " -> " + Int32Fields.model(kind) + ", client-java: " + model);
      }
    }
    assertThat(checked).isGreaterThan(90);
    assertThat(wrong).isEmpty();
    assertThat(Int32Fields.BUILT_IN_GROUPS).containsAll(groups);
  }

  private static List<Class<?>> modelClasses() {
    List<Class<?>> out = new ArrayList<>();
    try (var jar =
        new java.util.jar.JarFile(
            new java.io.File(
                V1Deployment.class.getProtectionDomain().getCodeSource().getLocation().toURI()))) {
      for (var e : java.util.Collections.list(jar.entries())) {
        String name = e.getName();
        if (name.startsWith("io/kubernetes/client/openapi/models/")
            && name.endsWith(".class")
            && !name.contains("$")) {
          Class<?> c =
              Class.forName(
                  name.substring(0, name.length() - 6).replace('/', '.'),
                  false,
                  V1Deployment.class.getClassLoader());
          if (KubernetesObject.class.isAssignableFrom(c)) {
            out.add(c);
          }
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return out;
  }
}
