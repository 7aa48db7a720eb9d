package dev.capstan.k8s;

import com.google.gson.Gson;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.TypeAdapter;
import com.google.gson.TypeAdapterFactory;
import com.google.gson.reflect.TypeToken;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonWriter;
import dev.capstan.release.model.ManifestConverter;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.io.IOException;
import java.util.Collection;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * client-java's models as manifests: any {@link KubernetesObject} ({@code V1Deployment}, {@code
 * V1ConfigMap}, a {@link DynamicKubernetesObject}, a generated custom resource class) given to
 * {@code Payloads.Builder.manifest(Object)} or {@code Manifest.ofModel(Object)}. Written with
 * client-java's own JSON mapping ({@link JSON#getGson()}), so {@code IntOrString}, {@code Quantity}
 * and timestamps read as the API server would, then as Capstan's trees ({@link JsonTrees#toJava}).
 *
 * <p>client-java's models start every list and map field empty ({@code V1Container.args} is {@code
 * []} until set), which its JSON writes: those are left out, as for a field never set (the API
 * server drops an empty list or map as well, so applying one would make the applied object differ
 * from the live one with nothing changed). An empty object ({@code emptyDir: {}}) is kept: it is a
 * value. A {@code DynamicKubernetesObject} is taken as its JSON is. Found by {@link
 * java.util.ServiceLoader}; a host does not call it.
 */
public final class ClientJavaManifests implements ManifestConverter {
  /** client-java's mapping, without empty lists and maps; made on first use. */
  private static final class Mapping {
    static final Gson GSON =
        JSON.getGson().newBuilder().registerTypeAdapterFactory(OMIT_EMPTY).create();
  }

  /** Writes an empty list or map as null, which Gson then leaves out with its field. */
  private static final TypeAdapterFactory OMIT_EMPTY =
      new TypeAdapterFactory() {
        @Override
        public <T> @Nullable TypeAdapter<T> create(Gson gson, TypeToken<T> type) {
          Class<? super T> raw = type.getRawType();
          if (!Collection.class.isAssignableFrom(raw) && !Map.class.isAssignableFrom(raw)) {
            return null;
          }
          TypeAdapter<T> delegate = gson.getDelegateAdapter(this, type);
          return new TypeAdapter<T>() {
            @Override
            public void write(JsonWriter out, T value) throws IOException {
              if ((value instanceof Collection<?> c && c.isEmpty())
                  || (value instanceof Map<?, ?> m && m.isEmpty())) {
                out.nullValue();
              } else {
                delegate.write(out, value);
              }
            }

            @Override
            public T read(JsonReader in) throws IOException {
              return delegate.read(in);
            }
          };
        }
      };

  /** Made by {@link java.util.ServiceLoader}. */
  public ClientJavaManifests() {}

  @Override
  public boolean accepts(Object model) {
    return model instanceof KubernetesObject;
  }

  @Override
  public Map<String, ?> toTree(Object model) {
    if (model instanceof DynamicKubernetesObject dynamic) {
      return JsonTrees.toJava(dynamic.getRaw());
    }
    JsonElement tree = Mapping.GSON.toJsonTree(model);
    if (!(tree instanceof JsonObject object)) {
      throw new IllegalArgumentException(
          "a " + model.getClass().getName() + " is not written as a JSON object by client-java");
    }
    return JsonTrees.toJava(object);
  }
}
