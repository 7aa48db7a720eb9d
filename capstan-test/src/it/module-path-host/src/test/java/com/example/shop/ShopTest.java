package com.example.shop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.common.StrictDocuments;
import dev.capstan.jdbc.JdbcStore;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.plan.Plan;
import org.h2.jdbcx.JdbcConnectionPool;
import org.junit.jupiter.api.Test;

class ShopTest {
  private static final String MANIFESTS =
      """
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: web-settings}
      data: {greeting: hello, retries: "3"}
      ---
      apiVersion: apps/v1
      kind: Deployment
      metadata: {name: web}
      spec:
        selector: {matchLabels: {app: web}}
        template:
          metadata: {labels: {app: web}}
          spec:
            containers:
              - name: web
                image: acme/web:1.0
                envFrom: [{configMapRef: {name: web-settings}}]
      """;

  @Test
  void capstanRunsAsNamedModules() {
    assertThat(Shop.class.getModule().getName()).isEqualTo("com.example.shop");
    assertThat(ReleaseController.class.getModule().getName()).isEqualTo("dev.capstan.release");
    assertThat(StrictDocuments.class.getModule().getName()).isEqualTo("dev.capstan.common");
    assertThat(ModuleLayer.boot().findModule("org.snakeyaml.engine")).isPresent();
    assertThat(ReleaseController.class.getModule().getDescriptor().isAutomatic()).isFalse();
  }

  @Test
  void readsYamlPlansCastsAndKeepsItsRecord() {
    Shop shop = new Shop();
    ReleaseInput release = Shop.release(MANIFESTS);

    String plan = shop.plan(release);
    Release cast = shop.cast(release);

    assertThat(plan)
        .contains("+ create     ConfigMap/shop/web-settings")
        .contains("+ create     apps/Deployment/shop/web");
    assertThat(cast.revision()).isEqualTo(1);
    assertThat(cast.status()).isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(Shop.recorded(cast)).isEqualTo(cast);
    Plan again = shop.planFile(release);
    assertThat(again.changesNothing()).isTrue();
    assertThat(again.revision()).isEqualTo(2);
  }

  @Test
  void keepsItsRecordsInASqlDatabase() {
    JdbcConnectionPool h2 = JdbcConnectionPool.create("jdbc:h2:mem:shop;DB_CLOSE_DELAY=-1", "sa", "");
    Shop shop = new Shop(h2);

    shop.cast(Shop.release(MANIFESTS));

    assertThat(JdbcStore.class.getModule().getName()).isEqualTo("dev.capstan.jdbc");
    assertThat(shop.history()).extracting(Release::revision).containsExactly(1);
  }
}
