package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;

class KubeClientsTest {

  @Test
  void inClusterOutsideAPodSaysWhy() {
    assumeTrue(System.getenv("KUBERNETES_SERVICE_HOST") == null, "this runs in a pod");
    assertThatThrownBy(KubeClients::inCluster)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "not running in a pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set");
  }
}
