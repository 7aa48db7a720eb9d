package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class LeaseHoldersTest {
  @Test
  void theHolderNamesTheHostTheProcessAndARandomPart() {
    Supplier<String> holders = LeaseHolders.onThisHost();
    String a = holders.get();
    String b = holders.get();

    assertThat(a)
        .startsWith(LeaseHolders.hostName() + "/pid " + ProcessHandle.current().pid() + "/")
        .matches(".+/pid \\d+/[0-9a-f]{8}");
    assertThat(b).isNotEqualTo(a);
  }

  @Test
  void theHostNameIsNeverBlank() {
    assertThat(LeaseHolders.hostName()).isNotBlank().isEqualTo(LeaseHolders.hostName().strip());
  }
}
