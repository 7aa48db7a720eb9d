package dev.capstan.helm;

import static java.util.Objects.requireNonNull;

import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One Helm release record as the storage driver keeps it, before decoding: a Secret (Helm's default
 * driver) or a ConfigMap ({@code HELM_DRIVER=configmap}).
 *
 * @param driver the storage driver
 * @param namespace the namespace of the Secret or ConfigMap
 * @param name its name, {@code sh.helm.release.v1.RELEASE.vREVISION}
 * @param type the Secret's type ({@code helm.sh/release.v1}); {@code null} for a ConfigMap
 * @param labels its labels ({@code owner=helm}, {@code name}, {@code version}, {@code status})
 * @param data the {@code release} value as stored: base64 text, or {@code null} when missing
 */
public record HelmRecord(
    Driver driver,
    String namespace,
    String name,
    @Nullable String type,
    Map<String, String> labels,
    @Nullable String data) {

  /** Copies the labels. */
  public HelmRecord {
    requireNonNull(driver, "driver");
    requireNonNull(namespace, "namespace");
    requireNonNull(name, "name");
    labels = Map.copyOf(labels);
  }

  /** Helm's storage drivers that keep records in the cluster. */
  public enum Driver {
    /** Records in Secrets of type {@code helm.sh/release.v1} (the default). */
    SECRET("Secret"),
    /** Records in ConfigMaps. */
    CONFIGMAP("ConfigMap");

    private final String kind;

    Driver(String kind) {
      this.kind = kind;
    }

    /** The Kubernetes kind holding the records. */
    public String kind() {
      return kind;
    }
  }

  /** The record as messages name it: {@code Secret shop/sh.helm.release.v1.shop.v2}. */
  public String describe() {
    return driver.kind() + " " + namespace + "/" + name;
  }

  /** Names the record only: its data may hold Secret values. */
  @Override
  public String toString() {
    return describe();
  }
}
