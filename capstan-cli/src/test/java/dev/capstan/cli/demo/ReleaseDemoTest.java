package dev.capstan.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ReleaseDemoTest {
  @Test
  void demoShowsEveryStepOfTheLifecycle() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    ReleaseDemo.run(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String out = bytes.toString(StandardCharsets.UTF_8);

    assertThat(out)
        .contains("cast: revision 1 deployed")
        .contains(
            "cluster writes (prune runs last): [apply:ConfigMap/shop/web-settings,"
                + " apply:apps/Deployment/shop/web, verify, delete:ConfigMap/shop/web-legacy]")
        .contains("  ! repair     ConfigMap/shop/web-settings  (drift:")
        .contains("data={log-level=debug}")
        .contains("  ✗ conflict   ConfigMap/shop/feature-flags")
        .contains("refused; object writes: 0")
        .contains(
            "deleted in order: [Service/shop/web, apps/Deployment/shop/web, Secret/shop/web-db,"
                + " ConfigMap/shop/web-settings]")
        .contains("kept (un-stamped): [PersistentVolumeClaim/shop/web-data]")
        .contains(
            "  ↪ adopt      PersistentVolumeClaim/shop/web-data  (re-adopt, retained earlier)")
        .contains("  revision 4  deployed    1.1.0")
        .contains("  revision 3  uninstalled 1.1.0")
        .doesNotContain("correct-horse-battery");
  }
}
