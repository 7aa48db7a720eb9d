package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.ApiException;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class KubeFailureTest {

  @AfterEach
  void clearInterrupt() {
    Thread.interrupted();
  }

  @Test
  void aStatusBodyGivesTheCodeReasonAndMessage() {
    ApiException e =
        new ApiException(
            "Conflict",
            409,
            Map.of(),
            "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
                + "\"message\":\"Operation cannot be fulfilled\",\"reason\":\"Conflict\",\"code\":409}");

    assertThat(KubeFailure.of(e))
        .isEqualTo(new KubeFailure(409, "Conflict", "Operation cannot be fulfilled", null));
  }

  @Test
  void aBodyThatIsNoStatusIsNeverShown() {
    ApiException e =
        new ApiException("boom", 500, Map.of(), "{\"data\":{\"password\":\"czNjcmV0\"}}");

    KubeFailure f = KubeFailure.of(e);

    assertThat(f.detail()).isEqualTo("HTTP 500 without a Status body");
    assertThat(f.toString()).doesNotContain("czNjcmV0");
  }

  @Test
  void aGenericApiFailureWhoseBodyWasNoStatusShowsNoBody() {
    io.kubernetes.client.openapi.models.V1Status fallback =
        new io.kubernetes.client.openapi.models.V1Status()
            .code(502)
            .message("<html>proxy says s3cret</html>");
    io.kubernetes.client.openapi.models.V1Status real =
        new io.kubernetes.client.openapi.models.V1Status()
            .kind("Status")
            .code(403)
            .reason("Forbidden")
            .message("secrets is forbidden");

    assertThat(KubeFailure.of(fallback, 502).detail()).isEqualTo("HTTP 502 without a Status body");
    assertThat(KubeFailure.of(real, 403))
        .isEqualTo(new KubeFailure(403, "Forbidden", "secrets is forbidden", null));
  }

  @Test
  void anInterruptedRequestRestoresTheInterruptFlag() {
    KubeFailure f = KubeFailure.of(new ApiException(new InterruptedIOException("interrupted")));

    assertThat(f.detail()).isEqualTo("interrupted");
    assertThat(f.interrupted()).isTrue();
    assertThat(Thread.currentThread().isInterrupted()).isTrue();
  }

  @Test
  void aReadTimeoutIsNoInterrupt() {
    KubeFailure f = KubeFailure.of(new ApiException(new SocketTimeoutException("timeout")));

    assertThat(f.status()).isZero();
    assertThat(f.detail()).isEqualTo("SocketTimeoutException: timeout");
    assertThat(f.interrupted()).isFalse();
    assertThat(Thread.currentThread().isInterrupted()).isFalse();
  }

  @Test
  void translationsNameTheOperationKindObjectAndStatus() {
    KubeFailure f = new KubeFailure(404, "NotFound", "deployments.apps \"web\" not found", null);

    RuntimeException release = f.toException("get", "Deployment", "shop", "web");
    RuntimeException update = f.toException("list", "Pod", "shop", null);

    assertThat(release)
        .isInstanceOf(dev.capstan.common.ClusterException.class)
        .hasMessage(
            "get Deployment shop/web failed (HTTP 404): deployments.apps \"web\" not found");
    assertThat(((dev.capstan.common.ClusterException) release).status()).isEqualTo(404);
    assertThat(update)
        .isInstanceOf(dev.capstan.common.ClusterException.class)
        .hasMessage(
            "list Pod in namespace shop failed (HTTP 404): deployments.apps \"web\" not found");
    dev.capstan.common.ClusterException u = (dev.capstan.common.ClusterException) update;
    assertThat(u.operation()).isEqualTo("list");
    assertThat(u.kind()).isEqualTo("Pod");
    assertThat(u.namespace()).isEqualTo("shop");
    assertThat(u.name()).isNull();
    assertThat(u.status()).isEqualTo(404);
    dev.capstan.common.ClusterException patch =
        new KubeFailure(422, "Invalid", "bad", null)
            .toException("patch", "Deployment", "shop", "web");
    assertThat(patch)
        .hasMessage("patch Deployment shop/web failed (HTTP 422): bad")
        .extracting(
            dev.capstan.common.ClusterException::kind,
            dev.capstan.common.ClusterException::namespace,
            dev.capstan.common.ClusterException::name,
            dev.capstan.common.ClusterException::status)
        .containsExactly("Deployment", "shop", "web", 422);
  }

  @Test
  void serverSideApplysRefusalOfTheContentIsToldFromAFaultOfTheServer() {
    String undeclared =
        "failed to create typed patch object (shop/web; apps/v1, Kind=Deployment): .spec.replicaz:"
            + " field not declared in schema";
    String unconvertible =
        "failed to convert new object (shop/web; apps/v1, Kind=Deployment) to proper version:"
            + " unable to convert unstructured object to apps/v1, Kind=Deployment: cannot convert"
            + " float64 to int32";

    assertThat(new KubeFailure(500, "", undeclared, null).refusesContent()).isTrue();
    assertThat(new KubeFailure(500, "", unconvertible, null).refusesContent()).isTrue();
    assertThat(new KubeFailure(500, "InternalError", undeclared, null).refusesContent()).isFalse();
    assertThat(new KubeFailure(422, "", undeclared, null).refusesContent()).isFalse();
    assertThat(
            new KubeFailure(
                    500,
                    "",
                    "failed to convert new object (shop/w; example.com/v1, Kind=Widget) to proper"
                        + " version: conversion webhook for example.com/v1, Kind=Widget failed",
                    null)
                .refusesContent())
        .isFalse();
    assertThat(
            new KubeFailure(500, "", undeclared, null)
                .toException("apply", "Deployment", "shop", "web"))
        .isInstanceOf(KubeFailure.ContentRefused.class)
        .hasMessage("apply Deployment shop/web failed (HTTP 500): " + undeclared);
  }
}
