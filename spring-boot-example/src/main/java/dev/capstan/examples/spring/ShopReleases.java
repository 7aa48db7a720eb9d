package dev.capstan.examples.spring;

import dev.capstan.release.ReleaseController;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.result.CastResult;
import java.util.Map;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;

/**
 * The shop's release: its web service and settings, in the namespace {@code shop.namespace}, cast
 * with the application's {@link ReleaseController}.
 */
@Service
public class ShopReleases {
  private final ReleaseController releases;
  private final String namespace;

  /** The releases of the shop in {@code shop.namespace} (default {@code shop}). */
  public ShopReleases(
      ReleaseController releases, @Value("${shop.namespace:shop}") String namespace) {
    this.releases = releases;
    this.namespace = namespace;
  }

  /** The shop at {@code version}: what Capstan casts. */
  public ReleaseInput shop(String version) {
    Payloads payloads =
        Payloads.builder()
            .configMap(ConfigMapSpec.of(namespace, "web-settings", Map.of("greeting", "hello")))
            .service(
                ServiceSpec.builder(namespace, "web")
                    .image("ghcr.io/acme/shop-web:" + version)
                    .port("http", 8080)
                    .envFromConfigMap("web-settings")
                    .build())
            .build();
    return ReleaseInput.of(namespace, "shop", payloads).withVersion(version);
  }

  /** What deploying {@code version} would change; changes nothing. */
  public Plan plan(String version) {
    return releases.plan(shop(version));
  }

  /** Deploys {@code version}: applied in order, waited for until healthy, recorded. */
  public CastResult deploy(String version) {
    return releases.cast(shop(version));
  }
}
