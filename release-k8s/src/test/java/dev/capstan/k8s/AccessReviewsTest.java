package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.sun.net.httpserver.HttpServer;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlannedChange;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The access review of a cast's plan against an API server on loopback that serves discovery and
 * answers each {@code SelfSubjectAccessReview} from a fixed set of denied requests: what a change
 * needs is what its execution sends.
 */
class AccessReviewsTest {
  private static final ResourceRef BINDING = ResourceRef.of(Kind.ROLE_BINDING, "shop", "deployers");

  /** The discovery of the one kind the plans here write. */
  private static final String APIS =
      """
      {"kind":"APIGroupDiscoveryList","items":[
        {"metadata":{"name":"rbac.authorization.k8s.io"},"versions":[
          {"version":"v1","resources":[
            {"resource":"rolebindings","scope":"Namespaced",
             "responseKind":{"group":"","version":"","kind":"RoleBinding"}}]}]}]}
      """;

  private final List<String> requests = new CopyOnWriteArrayList<>();
  private final List<String> reviewed = new CopyOnWriteArrayList<>();
  private @Nullable HttpServer server;

  private AccessReviews reviewsDenying(Set<String> denied) throws IOException {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    this.server = server;
    server.createContext(
        "/",
        x -> {
          String path = x.getRequestURI().getPath();
          requests.add(x.getRequestMethod() + " " + path);
          String answer;
          if (path.equals("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews")) {
            // the API server answers with the review sent and its status
            JsonObject review =
                JsonParser.parseString(
                        new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8))
                    .getAsJsonObject();
            JsonObject attributes =
                review.getAsJsonObject("spec").getAsJsonObject("resourceAttributes");
            String access =
                attributes.get("verb").getAsString()
                    + " "
                    + attributes.get("resource").getAsString();
            reviewed.add(access);
            JsonObject status = new JsonObject();
            status.addProperty("allowed", !denied.contains(access));
            review.add("status", status);
            answer = review.toString();
          } else if (path.equals("/apis")) {
            answer = APIS;
          } else {
            answer = "{\"kind\":\"APIGroupDiscoveryList\",\"items\":[]}";
          }
          byte[] body = answer.getBytes(StandardCharsets.UTF_8);
          x.getResponseHeaders().set("Content-Type", "application/json");
          x.sendResponseHeaders(path.endsWith("selfsubjectaccessreviews") ? 201 : 200, body.length);
          try (OutputStream out = x.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
    io.kubernetes.client.openapi.ApiClient api =
        new io.kubernetes.client.openapi.ApiClient()
            .setBasePath("http://127.0.0.1:" + server.getAddress().getPort());
    return new AccessReviews(KubeClients.fromApiClient(api, "test"));
  }

  @AfterEach
  void stop() {
    HttpServer running = server;
    if (running != null) {
      running.stop(0);
    }
  }

  private static Plan planOf(Action action) {
    return new Plan(
        "shop",
        "app",
        "id-1",
        2,
        1,
        List.of(new PlannedChange(BINDING, action, null, "sha256:1", null, false, 0)));
  }

  @Test
  void aReplaceByAnAccountThatMayNotDeleteIsDeniedNamingTheVerbAndTheObject() throws Exception {
    AccessReviews reviews = reviewsDenying(Set.of("delete rolebindings"));

    List<AccessReviews.Denial> denied = reviews.reviewCast(planOf(Action.REPLACE));

    assertThat(denied)
        .containsExactly(
            new AccessReviews.Denial(
                "delete", "rbac.authorization.k8s.io", "rolebindings", "shop", List.of(BINDING)));
    assertThat(denied.get(0).describe())
        .isEqualTo(
            "delete rolebindings.rbac.authorization.k8s.io in namespace shop (for"
                + " rbac.authorization.k8s.io/RoleBinding/shop/deployers)");
    // the replace's own requests, as its execution sends them, then the release's bookkeeping
    assertThat(reviewed)
        .startsWith(
            "delete rolebindings",
            "get rolebindings",
            "list rolebindings",
            "watch rolebindings",
            "create rolebindings",
            "patch rolebindings",
            "create leases");
    // a review writes nothing: discovery and the reviews alone
    assertThat(requests)
        .allMatch(
            r ->
                r.startsWith("GET /api")
                    || r.equals("POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews"));
  }

  @Test
  void aReplaceByAnAccountThatMayNotCreateIsDeniedBeforeItsDeleteCouldLeaveNothing()
      throws Exception {
    AccessReviews reviews = reviewsDenying(Set.of("create rolebindings"));

    assertThat(reviews.reviewCast(planOf(Action.REPLACE)))
        .extracting(AccessReviews.Denial::describe)
        .containsExactly(
            "create rolebindings.rbac.authorization.k8s.io in namespace shop (for"
                + " rbac.authorization.k8s.io/RoleBinding/shop/deployers)");
  }

  @Test
  void anUpdateNeedsOnlyPatchOfItsKind() throws Exception {
    AccessReviews reviews = reviewsDenying(Set.of("delete rolebindings", "create rolebindings"));

    assertThat(reviews.reviewCast(planOf(Action.UPDATE))).isEmpty();
    assertThat(reviewed)
        .filteredOn(r -> r.endsWith(" rolebindings"))
        .containsExactly("patch rolebindings");
  }
}
