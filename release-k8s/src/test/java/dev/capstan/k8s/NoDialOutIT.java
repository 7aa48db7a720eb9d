package dev.capstan.k8s;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.capstan.k8s.testing.Await;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.LoopbackHttpsResponder;
import java.io.IOException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The test control plane refuses, in its own API server (the admission policies of {@code
 * testing/control-plane/no-dial-out.yaml}), everything that would make it dial a Service or pod IP,
 * which routes off this machine: an APIService, webhook configuration or CRD conversion webhook
 * naming a Service, and proxying to pods and Services. What it admits instead is shown too: {@code
 * https://127.0.0.1:PORT} URLs, and an APIService naming a Service of namespace {@code
 * capstan-loopback}, where only {@code ExternalName localhost} Services may live and the aggregator
 * dials {@code https://localhost:PORT}.
 *
 * <p>Every refused shape is sent as a dry run ({@code dryRun=All}): admission runs in full, nothing
 * is stored, so even a control plane without the policies would not dial anything.
 */
@ControlPlaneTest
class NoDialOutIT {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final MediaType JSON = MediaType.get("application/json");

  /** An answer of the API server: HTTP status and, for a refusal, the Status message. */
  private record Answer(int status, String message) {}

  @Test
  void anApiServiceNamingAServiceIsRefusedWithAdvice(ControlPlane plane) {
    Answer answer =
        dryRunCreate(
            plane,
            "/apis/apiregistration.k8s.io/v1/apiservices",
            apiService("v1.dial-out.capstan.test", "dial-out.capstan.test", "shop", "api", 443));

    assertRefused(
        answer,
        "capstan-no-dial-out",
        "APIService v1.dial-out.capstan.test: spec.service names Service shop/api,"
            + " which the API server would dial at a Service IP, off this machine"
            + " (capstan-no-dial-out); serve the API from a responder on"
            + " https://127.0.0.1:PORT and name a Service in namespace capstan-loopback of"
            + " type ExternalName with externalName localhost, spec.service.port PORT");
  }

  @Test
  void webhookConfigurationsNamingAServiceAreRefusedNamingTheWebhook(ControlPlane plane) {
    for (String kind :
        new String[] {"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"}) {
      String plural = kind.toLowerCase(java.util.Locale.ROOT) + "s";
      String body =
          "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":\""
              + kind
              + "\",\"metadata\":{\"name\":\"dial-out\"},\"webhooks\":["
              + webhook("by-url.capstan.test", "{\"url\":\"https://127.0.0.1:9443/check\"}")
              + ","
              + webhook(
                  "by-service.capstan.test",
                  "{\"service\":{\"namespace\":\"shop\",\"name\":\"hooks\",\"path\":\"/check\"}}")
              + "]}";

      Answer answer = dryRunCreate(plane, "/apis/admissionregistration.k8s.io/v1/" + plural, body);

      assertRefused(
          answer,
          "capstan-no-dial-out",
          kind
              + " dial-out: webhooks[].clientConfig.service names Service shop/hooks"
              + " (webhook by-service.capstan.test), which the API server would dial at a"
              + " Service IP, off this machine (capstan-no-dial-out); use clientConfig.url"
              + " https://127.0.0.1:PORT, served by a responder in the test");
    }
  }

  @Test
  void aConversionWebhookNamingAServiceIsRefused(ControlPlane plane) {
    Answer answer =
        dryRunCreate(
            plane,
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
            crd("{\"service\":{\"namespace\":\"shop\",\"name\":\"convert\",\"path\":\"/c\"}}"));

    assertRefused(
        answer,
        "capstan-no-dial-out",
        "CustomResourceDefinition widgets.dial-out.capstan.test:"
            + " spec.conversion.webhook.clientConfig.service names Service shop/convert,"
            + " which the API server would dial at a Service IP, off this machine"
            + " (capstan-no-dial-out); use spec.conversion.webhook.clientConfig.url"
            + " https://127.0.0.1:PORT, served by a responder in the test");
  }

  @Test
  void loopbackUrlsAreAdmittedAsTheAdviceSays(ControlPlane plane) {
    String caBundle =
        Base64.getEncoder().encodeToString("not checked on admission".getBytes(UTF_8));
    String url = "{\"url\":\"https://127.0.0.1:9443/check\",\"caBundle\":\"" + caBundle + "\"}";

    assertThat(
            dryRunCreate(
                plane,
                "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
                "{\"apiVersion\":\"admissionregistration.k8s.io/v1\","
                    + "\"kind\":\"ValidatingWebhookConfiguration\",\"metadata\":{\"name\":\"loopback\"},"
                    + "\"webhooks\":["
                    + webhook("by-url.capstan.test", url)
                    + "]}"))
        .extracting(Answer::status)
        .isEqualTo(201);
    assertThat(
            dryRunCreate(
                plane, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd(url)))
        .extracting(Answer::status)
        .isEqualTo(201);
  }

  @Test
  void proxyingToPodsAndServicesIsRefused(ControlPlane plane) {
    Answer pod = send(plane, "GET", "/api/v1/namespaces/default/pods/web-0/proxy/", null);
    Answer service =
        send(plane, "GET", "/api/v1/namespaces/default/services/web:80/proxy/healthz", null);

    assertRefused(
        pod,
        "capstan-no-proxy",
        "pods/proxy default/web-0: the API server would dial a pod or Service IP,"
            + " off this machine (capstan-no-proxy); tests never connect to pods or"
            + " Services");
    assertRefused(
        service,
        "capstan-no-proxy",
        "services/proxy default/web:80: the API server would dial a pod or Service"
            + " IP, off this machine (capstan-no-proxy); tests never connect to pods or"
            + " Services");
  }

  @Test
  void theLoopbackNamespaceHoldsOnlyExternalNameLocalhostServices(ControlPlane plane) {
    String path = "/api/v1/namespaces/capstan-loopback/services";
    String clusterIp =
        "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"plain\"},"
            + "\"spec\":{\"ports\":[{\"port\":443}]}}";
    String elsewhere =
        "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"elsewhere\"},"
            + "\"spec\":{\"type\":\"ExternalName\",\"externalName\":\"registry.example\"}}";

    assertRefused(
        dryRunCreate(plane, path, clusterIp),
        "capstan-loopback-services",
        loopbackRefusal("plain", "ClusterIP"));
    assertRefused(
        dryRunCreate(plane, path, elsewhere),
        "capstan-loopback-services",
        loopbackRefusal("elsewhere", "ExternalName, externalName registry.example"));

    String name = "it-" + Integer.toString(RANDOM.nextInt(1 << 30), 36);
    assertThat(send(plane, "POST", path, externalNameLocalhost(name)).status()).isEqualTo(201);
    try {
      // an UPDATE is checked as a CREATE is: the same Service turned into a ClusterIP one
      Answer update =
          send(
              plane,
              "PUT",
              path + "/" + name,
              read(plane, path + "/" + name)
                  .replace(
                      "\"type\":\"ExternalName\"",
                      "\"type\":\"ClusterIP\",\"ports\":[{\"port\":443}]"));
      assertRefused(
          update,
          "capstan-loopback-services",
          loopbackRefusal(name, "ClusterIP, externalName localhost"));
    } finally {
      send(plane, "DELETE", path + "/" + name, null);
    }
  }

  @Test
  void anApiServiceOfTheLoopbackNamespaceIsDialledAtLocalhost(ControlPlane plane) {
    String suffix = Integer.toString(RANDOM.nextInt(1 << 30), 36);
    String group = "loopback-" + suffix + ".capstan.test";
    String name = "v1alpha1." + group;
    String service = "it-" + suffix;
    String services = "/api/v1/namespaces/capstan-loopback/services";
    String apiServices = "/apis/apiregistration.k8s.io/v1/apiservices";
    try (LoopbackHttpsResponder responder =
        LoopbackHttpsResponder.start(
            p ->
                "{\"kind\":\"APIResourceList\",\"apiVersion\":\"v1\",\"groupVersion\":\""
                    + group
                    + "/v1alpha1\",\"resources\":[]}")) {
      assertThat(send(plane, "POST", services, externalNameLocalhost(service)).status())
          .isEqualTo(201);
      try {
        Answer created =
            send(
                plane,
                "POST",
                apiServices,
                apiService(name, group, "capstan-loopback", service, responder.port()));
        assertThat(created.status()).as(created.message()).isEqualTo(201);

        // the aggregator's availability check reaches the responder on 127.0.0.1
        String available =
            Await.until(
                "APIService " + name + " Available=True",
                Duration.ofSeconds(60),
                () -> condition(plane, apiServices + "/" + name),
                c -> c.startsWith("True"));
        assertThat(available).startsWith("True Passed");
        assertThat(responder.requests()).contains("GET /apis/" + group + "/v1alpha1");
      } finally {
        send(plane, "DELETE", apiServices + "/" + name, null);
        send(plane, "DELETE", services + "/" + service, null);
      }
    }
  }

  /**
   * A refusal by {@code policy} with exactly {@code text} as its message. How the API server frames
   * a policy's denial differs between versions (1.37: HTTP 422 and {@code <resource> "<name>" is
   * forbidden: } before it; older ones other prefixes, 403 for some kinds), so only that the
   * request was refused and the policy's whole message are asserted.
   */
  private static void assertRefused(Answer answer, String policy, String text) {
    assertThat(answer.status()).as(answer.message()).isIn(403, 422);
    assertThat(answer.message()).endsWith(denied(policy) + text);
  }

  private static String denied(String policy) {
    return "ValidatingAdmissionPolicy '"
        + policy
        + "' with binding '"
        + policy
        + "' denied request: ";
  }

  private static String loopbackRefusal(String name, String shape) {
    return "Service capstan-loopback/"
        + name
        + ": spec.type "
        + shape
        + ": a Service in namespace capstan-loopback must be type ExternalName with externalName"
        + " localhost, so that an APIService naming it is dialled at https://localhost:PORT"
        + " (capstan-loopback-services)";
  }

  private static String apiService(
      String name, String group, String namespace, String service, int port) {
    return "{\"apiVersion\":\"apiregistration.k8s.io/v1\",\"kind\":\"APIService\","
        + "\"metadata\":{\"name\":\""
        + name
        + "\"},\"spec\":{\"group\":\""
        + group
        + "\",\"version\":\""
        + name.substring(0, name.indexOf('.'))
        + "\",\"groupPriorityMinimum\":1000,\"versionPriority\":15,"
        + "\"insecureSkipTLSVerify\":true,\"service\":{\"namespace\":\""
        + namespace
        + "\",\"name\":\""
        + service
        + "\",\"port\":"
        + port
        + "}}}";
  }

  private static String externalNameLocalhost(String name) {
    return "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\""
        + name
        + "\"},\"spec\":{\"type\":\"ExternalName\",\"externalName\":\"localhost\"}}";
  }

  private static String webhook(String name, String clientConfig) {
    return "{\"name\":\""
        + name
        + "\",\"admissionReviewVersions\":[\"v1\"],\"sideEffects\":\"None\","
        + "\"clientConfig\":"
        + clientConfig
        + ",\"rules\":[{\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\"],"
        + "\"operations\":[\"CREATE\"],\"resources\":[\"configmaps\"]}]}";
  }

  private static String crd(String clientConfig) {
    String schema =
        "\"schema\":{\"openAPIV3Schema\":{\"type\":\"object\","
            + "\"x-kubernetes-preserve-unknown-fields\":true}}";
    return "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"CustomResourceDefinition\","
        + "\"metadata\":{\"name\":\"widgets.dial-out.capstan.test\"},\"spec\":{"
        + "\"group\":\"dial-out.capstan.test\",\"scope\":\"Namespaced\","
        + "\"names\":{\"plural\":\"widgets\",\"singular\":\"widget\",\"kind\":\"Widget\"},"
        + "\"versions\":[{\"name\":\"v1\",\"served\":true,\"storage\":true,"
        + schema
        + "},{\"name\":\"v2\",\"served\":true,\"storage\":false,"
        + schema
        + "}],\"conversion\":{\"strategy\":\"Webhook\",\"webhook\":{"
        + "\"conversionReviewVersions\":[\"v1\"],\"clientConfig\":"
        + clientConfig
        + "}}}}";
  }

  /** The Available condition of an APIService as "STATUS REASON: MESSAGE", or null before one. */
  private static @Nullable String condition(ControlPlane plane, String path) {
    JsonObject status = JsonParser.parseString(read(plane, path)).getAsJsonObject();
    JsonElement conditions =
        status.has("status") ? status.getAsJsonObject("status").get("conditions") : null;
    if (conditions == null || !conditions.isJsonArray()) {
      return null;
    }
    for (JsonElement c : conditions.getAsJsonArray()) {
      JsonObject o = c.getAsJsonObject();
      if ("Available".equals(o.get("type").getAsString())) {
        return o.get("status").getAsString()
            + " "
            + o.get("reason").getAsString()
            + ": "
            + (o.has("message") ? o.get("message").getAsString() : "");
      }
    }
    return null;
  }

  private static String read(ControlPlane plane, String path) {
    Answer answer = send(plane, "GET", path, null);
    assertThat(answer.status()).as("GET " + path).isEqualTo(200);
    return answer.message();
  }

  private static Answer dryRunCreate(ControlPlane plane, String path, String body) {
    return send(plane, "POST", path + "?dryRun=All", body);
  }

  /**
   * Sends one request with the admin client; the message is the Status message of a refusal, or the
   * body of a success.
   */
  private static Answer send(
      ControlPlane plane, String method, String path, @Nullable String body) {
    OkHttpClient http = plane.client().getHttpClient();
    Request request =
        new Request.Builder()
            .url(plane.client().getBasePath() + path)
            .method(method, body == null ? null : RequestBody.create(body, JSON))
            .build();
    try (Response response = http.newCall(request).execute()) {
      ResponseBody responseBody = response.body();
      String text = responseBody == null ? "" : responseBody.string();
      if (response.isSuccessful()) {
        return new Answer(response.code(), text);
      }
      JsonElement status = JsonParser.parseString(text);
      String message =
          status.isJsonObject() && status.getAsJsonObject().has("message")
              ? status.getAsJsonObject().get("message").getAsString()
              : text;
      return new Answer(response.code(), message);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(method + " " + path, e);
    }
  }
}
