package dev.capstan.examples;

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
            "cluster writes (prune runs last): [apply:configmap/shop/web-settings,"
                + " apply:service/shop/web, verify, delete:configmap/shop/web-legacy]")
        .contains("  ! repair     configmap/shop/web-settings  (drift:")
        .contains("data={log-level=debug}")
        .contains("  ✗ conflict   configmap/shop/feature-flags")
        .contains("refused; object writes: 0")
        .contains(
            "deleted in order: [service/shop/web, secret/shop/web-db, configmap/shop/web-settings]")
        .contains("kept (un-stamped): [volume/shop/web-data]")
        .contains("  ↪ adopt      volume/shop/web-data  (re-adopt volume retained earlier)")
        .contains("  revision 4  deployed    1.1.0")
        .contains("  revision 3  uninstalled 1.1.0")
        .doesNotContain("correct-horse-battery");
  }
}
