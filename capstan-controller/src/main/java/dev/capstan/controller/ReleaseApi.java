package dev.capstan.controller;

import com.google.gson.JsonObject;
import com.google.gson.JsonSyntaxException;
import com.google.gson.reflect.TypeToken;
import dev.capstan.common.Escapes;
import io.kubernetes.client.informer.ListerWatcher;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.openapi.models.V1Status;
import io.kubernetes.client.util.CallGeneratorParams;
import io.kubernetes.client.util.Watch;
import io.kubernetes.client.util.Watchable;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesListObject;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.io.IOException;
import java.io.StringReader;
import java.lang.reflect.Type;
import java.util.Optional;
import okhttp3.Call;
import okhttp3.Response;
import okhttp3.ResponseBody;
import org.jspecify.annotations.Nullable;

/**
 * The Release resources on the API server as the controller reads them: listed and watched for the
 * informer (a {@link ListerWatcher}), or one of them read. Every answer is parsed by {@link
 * ReleaseJson}, so a Release nested deeper than client-java's parser goes is read like any other
 * (and refused by its spec's check): it fails neither its own read nor the list or the watch that
 * holds the others. The requests are client-java's ({@link CustomObjectsApi}), and so are a watch's
 * reading of lines and its failures (a {@link Watch}): only the parsing is ours.
 */
final class ReleaseApi
    implements ListerWatcher<DynamicKubernetesObject, DynamicKubernetesListObject> {
  private static final Type EVENT =
      TypeToken.getParameterized(Watch.Response.class, DynamicKubernetesObject.class).getType();

  private final ApiClient client;
  private final CustomObjectsApi api;
  private final @Nullable String labelSelector;

  /**
   * The Releases on {@code client}.
   *
   * @param labelSelector the label selector of the Releases listed and watched, or null for all
   */
  ReleaseApi(ApiClient client, @Nullable String labelSelector) {
    this.client = client;
    this.api = new CustomObjectsApi(client);
    this.labelSelector = labelSelector;
  }

  @Override
  public DynamicKubernetesListObject list(CallGeneratorParams params) throws ApiException {
    try (ResponseBody body = send(collection(params, false))) {
      return ReleaseJson.list(body.charStream());
    } catch (IOException e) {
      throw new ApiException(e);
    }
  }

  @Override
  public Watchable<DynamicKubernetesObject> watch(CallGeneratorParams params) throws ApiException {
    Call call = collection(params, true);
    return new Events(client, send(call), call);
  }

  /**
   * Reads one Release.
   *
   * @return the Release, or empty when it does not exist
   * @throws ApiException when the API server refuses the read (not 404) or cannot be reached
   */
  Optional<DynamicKubernetesObject> get(ReleaseKey key) throws ApiException {
    Call call =
        api.getNamespacedCustomObject(
                ReleaseResource.GROUP,
                ReleaseResource.VERSION,
                key.namespace(),
                ReleaseResource.PLURAL,
                key.name())
            .buildCall(null);
    ResponseBody found;
    try {
      found = send(call);
    } catch (ApiException e) {
      if (e.getCode() == 404) {
        return Optional.empty();
      }
      throw e;
    }
    try (ResponseBody body = found) {
      return Optional.of(ReleaseJson.release(ReleaseJson.parse(body.charStream())));
    } catch (IOException e) {
      throw new ApiException(e);
    }
  }

  private Call collection(CallGeneratorParams params, boolean watch) throws ApiException {
    return api.listClusterCustomObject(
            ReleaseResource.GROUP, ReleaseResource.VERSION, ReleaseResource.PLURAL)
        .labelSelector(labelSelector)
        .resourceVersion(params.resourceVersion)
        .timeoutSeconds(params.timeoutSeconds)
        .watch(watch)
        .buildCall(null);
  }

  /**
   * The body of a successful answer; else the {@link ApiException} client-java throws (its status
   * and body).
   */
  private static ResponseBody send(Call call) throws ApiException {
    Response response;
    try {
      response = call.execute();
    } catch (IOException e) {
      throw new ApiException(e);
    }
    if (response.isSuccessful()) {
      return response.body();
    }
    try (ResponseBody body = response.body()) {
      throw new ApiException(
          response.message(), response.code(), response.headers().toMultimap(), body.string());
    } catch (IOException e) {
      throw new ApiException(
          response.message(), e, response.code(), response.headers().toMultimap());
    }
  }

  /** A watch of Releases: client-java's, each event parsed by {@link ReleaseJson}. */
  private static final class Events extends Watch<DynamicKubernetesObject> {
    Events(ApiClient client, ResponseBody body, Call call) {
      super(client.getJSON(), body, EVENT, call);
    }

    @Override
    protected Watch.Response<DynamicKubernetesObject> parseLine(String line) throws IOException {
      JsonObject event = ReleaseJson.parse(new StringReader(line));
      @Nullable String type = text(event, "type");
      if (!(event.get("object") instanceof JsonObject object)) {
        throw new JsonSyntaxException("a watch event without an object: " + Escapes.quote(type));
      }
      if ("Status".equals(text(object, "kind")) && "v1".equals(text(object, "apiVersion"))) {
        V1Status status = JSON.getGson().fromJson(object, V1Status.class);
        return new Watch.Response<DynamicKubernetesObject>(type, status);
      }
      return new Watch.Response<>(type, ReleaseJson.release(object));
    }

    private static @Nullable String text(JsonObject object, String key) {
      return object.get(key) != null && object.get(key).isJsonPrimitive()
          ? object.get(key).getAsString()
          : null;
    }
  }
}
