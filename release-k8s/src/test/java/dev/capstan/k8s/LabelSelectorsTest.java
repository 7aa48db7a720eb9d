package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonParser;
import org.junit.jupiter.api.Test;

/** {@link LabelSelectors}: a workload's selector as the label selector its pods are watched by. */
class LabelSelectorsTest {
  @Test
  void aWorkloadSelectorIsSaidAsALabelSelectorOrNotAtAll() {
    assertThat(
            LabelSelectors.of(
                JsonParser.parseString(
                        "{\"spec\":{\"selector\":{\"matchLabels\":{\"b\":\"2\",\"a\":\"1\"},"
                            + "\"matchExpressions\":[{\"key\":\"tier\",\"operator\":\"In\","
                            + "\"values\":[\"web\",\"api\"]},{\"key\":\"canary\",\"operator\":"
                            + "\"NotIn\",\"values\":[\"yes\"]},{\"key\":\"team\",\"operator\":"
                            + "\"Exists\"},{\"key\":\"legacy\",\"operator\":\"DoesNotExist\"}]}}}")
                    .getAsJsonObject()))
        .isEqualTo("a=1,b=2,tier in (web,api),canary notin (yes),team,!legacy");
    // none, one that selects everything, an operator this cannot say: the namespace is watched
    assertThat(LabelSelectors.of(JsonParser.parseString("{\"spec\":{}}").getAsJsonObject()))
        .isNull();
    assertThat(
            LabelSelectors.of(
                JsonParser.parseString("{\"spec\":{\"selector\":{}}}").getAsJsonObject()))
        .isNull();
    assertThat(
            LabelSelectors.of(
                JsonParser.parseString(
                        "{\"spec\":{\"selector\":{\"matchExpressions\":[{\"key\":\"k\","
                            + "\"operator\":\"Gt\",\"values\":[\"1\"]}]}}}")
                    .getAsJsonObject()))
        .isNull();
  }
}
