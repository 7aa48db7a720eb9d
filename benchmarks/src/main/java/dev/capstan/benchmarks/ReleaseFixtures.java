package dev.capstan.benchmarks;

import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ResourceSpec;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.release.model.VolumeSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Releases of a given size: a quarter each of services, secrets, configmaps and volumes. */
final class ReleaseFixtures {
  static final String NS = "bench";

  private ReleaseFixtures() {}

  static Payloads payloads(int size, String version) {
    List<ResourceSpec> specs = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      String name = "obj-" + i;
      specs.add(
          switch (i % 4) {
            case 0 -> ConfigMapSpec.of(NS, name, Map.of("version", version, "index", "" + i));
            case 1 -> SecretSpec.of(NS, name, Map.of("password", "pw-" + i));
            case 2 -> VolumeSpec.of(NS, name, "1Gi");
            default ->
                ServiceSpec.builder(NS, "svc-" + i)
                    .image("registry.example/app:" + version)
                    .replicas(2)
                    .port("http", 8080)
                    .env("INDEX", "" + i)
                    .build();
          });
    }
    return Payloads.of(specs);
  }
}
