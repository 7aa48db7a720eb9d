package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.capstan.common.ClusterException;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.port.Precondition;
import io.kubernetes.client.openapi.ApiClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import okhttp3.Interceptor;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link DryRuns#verify} against an API server that answers the dry run with a canned response:
 * which answers are a verdict on the object (a refusal the plan shows as a conflict) and which are
 * a failure of the server (thrown). Server-side apply refuses a field the schema does not declare,
 * or a value of the wrong type, with HTTP 500 and no reason; the messages are the API server's
 * (1.37.2).
 */
class DryRunsTest {
  private static final MediaType JSON = MediaType.get("application/json");
  private static final Manifest WEB =
      Manifest.of(
          Map.of(
              "apiVersion",
              "apps/v1",
              "kind",
              "Deployment",
              "metadata",
              Map.of("name", "web", "namespace", "shop"),
              "spec",
              Map.of("replicas", 1, "replicaz", 3)));

  private final List<String> sent = new ArrayList<>();
  private int code;
  private String body = "";

  private Optional<String> verify(int code, String body) {
    return verify(WEB, code, body);
  }

  private Optional<String> verify(Manifest object, int code, String body) {
    this.code = code;
    this.body = body;
    ApiClient client = new ApiClient();
    client.setBasePath("https://127.0.0.1:6443");
    client.setHttpClient(new OkHttpClient.Builder().addInterceptor(this::serve).build());
    DynamicApis apis = new DynamicApis(KubeClients.fromApiClient(client, "scripted"));
    return new DryRuns(apis, new ServedKinds(apis)).verify(object, null, Precondition.none());
  }

  private Response serve(Interceptor.Chain chain) {
    Request r = chain.request();
    sent.add(
        r.method() + " " + r.url().encodedPath() + "?dryRun=" + r.url().queryParameter("dryRun"));
    return new Response.Builder()
        .request(r)
        .protocol(Protocol.HTTP_1_1)
        .code(code)
        .message("x")
        .body(ResponseBody.create(body, JSON))
        .build();
  }

  private static String status(int code, String reason, String message) {
    return "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
        + "\"message\":\""
        + message.replace("\"", "\\\"")
        + "\""
        + (reason.isEmpty() ? "" : ",\"reason\":\"" + reason + "\"")
        + ",\"code\":"
        + code
        + "}";
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          500 |         | failed to create typed patch object (shop/web; apps/v1, Kind=Deployment): .spec.replicaz: field not declared in schema
          500 |         | failed to create typed patch object (shop/web; apps/v1, Kind=Deployment): .spec.replicas: expected numeric (int or float), got string
          500 |         | failed to create typed patch object: .spec.template.spec.containers[name="web"].env: duplicate entries for key [name="A"]
          500 |         | failed to convert new object (shop/web; apps/v1, Kind=Deployment) to proper version: unable to convert unstructured object to apps/v1, Kind=Deployment: cannot convert float64 to int32
          422 | Invalid | Deployment.apps "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0
          """)
  void theServersVerdictOnTheContentIsARefusalOfTheObject(int code, String reason, String message) {
    Optional<String> refusal = verify(code, status(code, reason == null ? "" : reason, message));

    assertThat(refusal)
        .contains("dry-run apply Deployment shop/web failed (HTTP " + code + "): " + message);
    assertThat(sent)
        .containsExactly("PATCH /apis/apps/v1/namespaces/shop/deployments/web?dryRun=All");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          500 | InternalError | Internal error occurred: failed calling webhook "validate.example.com": connection refused
          500 |               | failed to convert new object (shop/web; example.com/v1, Kind=Widget) to proper version: conversion webhook for example.com/v1, Kind=Widget failed: connection refused
          500 |               | failed to create typed live object (shop/web; apps/v1, Kind=Deployment): .spec.x: field not declared in schema
          500 |               | etcdserver: request is too large
          500 | InternalError | failed to create typed patch object (shop/web; apps/v1, Kind=Deployment): .spec.replicaz: field not declared in schema
          """)
  void aFaultOfTheServerIsThrownNotTakenForARefusal(int code, String reason, String message) {
    ClusterException e =
        catchThrowableOfType(
            ClusterException.class,
            () -> verify(code, status(code, reason == null ? "" : reason, message)));

    assertThat(e)
        .hasMessage("dry-run apply Deployment shop/web failed (HTTP 500): " + message)
        .isNotInstanceOf(KubeFailure.ContentRefused.class);
    assertThat(e.status()).isEqualTo(500);
  }

  @Test
  void anAcceptedDryRunIsNoRefusal() {
    assertThat(
            verify(
                200,
                "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\","
                    + "\"metadata\":{\"name\":\"web\",\"namespace\":\"shop\"},"
                    + "\"spec\":{\"replicas\":1}}"))
        .isEmpty();
  }

  @Test
  void anAcceptedDryRunThatStoresAnotherNumberIsARefusalFromTheSameRequest() {
    Manifest web = WEB.with("spec", Map.of("replicas", 4294967298L));

    assertThat(
            verify(
                web,
                201,
                "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\","
                    + "\"metadata\":{\"name\":\"web\",\"namespace\":\"shop\"},"
                    + "\"spec\":{\"replicas\":2}}"))
        .hasValue(
            "Deployment shop/web: spec.replicas must be a number its field stores as sent; the API"
                + " server's dry run stores 2"
                + StoredNumbers.WHY
                + ": 4294967298");
    assertThat(sent)
        .containsExactly("PATCH /apis/apps/v1/namespaces/shop/deployments/web?dryRun=All");
  }
}
