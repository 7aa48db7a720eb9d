package dev.capstan.release.codec;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.capstan.common.JsonMappers;
import dev.capstan.release.internal.json.Json;
import dev.capstan.release.model.Release;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * The one encoding of release records that every store shares: gzip-compressed JSON {@code
 * {"schemaVersion": 6, "release": {...}}}, keys sorted, so the same record is the same bytes in a
 * Kubernetes Secret, a database row or a file.
 *
 * <p>Schema 2 (open kinds) names objects by apiVersion, kind, namespace and name, and holds any
 * manifest among the payloads. Records of schema 1 (four kinds: service, secret, configmap, volume)
 * are still read: their refs become the objects those kinds render to (a service owns its
 * Deployment and its Service), so upgrading Capstan loses no history. The next cast of such a
 * release re-applies every object once, since the content hashes are now of the rendered objects.
 *
 * <p>Schema 3 adds, additively, the release's {@code secretHashKey} (base64) and its {@code
 * withheldSecrets}; records of schema 2 (and 1) have neither and still decode: the next cast makes
 * a key.
 *
 * <p>Schema 4 adds, additively, the {@code chart} a revision was rendered from ({@link
 * dev.capstan.release.model.ChartOrigin}) and the {@code attempt} that wrote the record (the id its
 * operation's lease intent names). A record with neither is written as schema 3, the same bytes an
 * earlier Capstan writes and reads; one with either is refused by an earlier Capstan as written by
 * a different version, rather than misread.
 *
 * <p>Schema 5 adds, additively, the {@code hooks} a revision ran and how each ended. A record
 * without any is written as schema 4 (or 3), the bytes an earlier Capstan writes and reads; one
 * with hooks is refused by an earlier Capstan as of a newer schema, not as malformed.
 *
 * <p>Schema 6 adds, additively, the {@code retainedUids}: which object the release retained at each
 * retained ref ({@link dev.capstan.release.model.RetainedUid}). A record without any is written as
 * schema 5 (or 4, or 3), the bytes an earlier Capstan writes and reads; one with them is refused by
 * an earlier Capstan as of a newer schema. A record of an earlier schema has no uids: its retained
 * objects are re-adopted as an earlier Capstan re-adopted them.
 *
 * <p>Records hold the release's payloads, secrets included unless a cast kept their values out
 * ({@code recordSecretValues} off), and the key that hashes its Secrets: stores must keep the bytes
 * as secret as the secrets themselves (the Kubernetes store uses Secret objects).
 */
public final class ReleaseRecordCodec {
  /** The newest schema version this library writes: a record with the uids of retained objects. */
  public static final int SCHEMA_VERSION = 6;

  /** The schema a record with hook outcomes and no retained uids is written in. */
  private static final int SCHEMA_5 = 5;

  /** The schema a record with a chart or an attempt and no hook outcomes is written in. */
  private static final int SCHEMA_4 = 4;

  /**
   * The schema a record with neither a chart nor an attempt is written in, readable by earlier
   * builds.
   */
  private static final int SCHEMA_3 = 3;

  /** The oldest schema version this library reads. */
  public static final int OLDEST_READABLE_VERSION = 1;

  /**
   * The largest decoded record accepted, 128 MiB: a guard against corrupt or hostile input, and
   * room for a release at the release file's limit (64 MiB of manifests, kept whole for rollback).
   */
  public static final int MAX_DECODED_BYTES = 128 << 20;

  private ReleaseRecordCodec() {}

  /** Encodes a record. */
  public static byte[] encode(Release release) {
    ObjectNode root = Json.mapper().createObjectNode();
    root.put("schemaVersion", schema(release));
    root.set("release", Json.mapper().valueToTree(release));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (GZIPOutputStream gzip = new GZIPOutputStream(bytes)) {
      gzip.write(Json.canonical(root));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot compress a release record in memory", e);
    }
    return bytes.toByteArray();
  }

  /** The oldest schema that holds everything {@code release} has: the bytes earlier builds read. */
  private static int schema(Release release) {
    if (!release.retainedUids().isEmpty()) {
      return SCHEMA_VERSION;
    }
    if (!release.hooks().isEmpty()) {
      return SCHEMA_5;
    }
    return release.chart() == null && release.attempt() == null ? SCHEMA_3 : SCHEMA_4;
  }

  /**
   * Decodes a record.
   *
   * @throws RecordFormatException if the bytes are not a record of a supported schema version
   */
  public static Release decode(byte[] encoded) {
    return decode(encoded, RecordLimits.DEFAULT);
  }

  /**
   * Decodes a record, holding no more of it than {@code limits} allow: inflated no further than
   * their bytes, its tree built no further than their nodes.
   *
   * @throws RecordFormatException if the bytes are not a record of a supported schema version, or
   *     the record is larger than {@code limits} (the message names the limit passed)
   */
  public static Release decode(byte[] encoded, RecordLimits limits) {
    byte[] json = gunzip(encoded, limits.maxDecodedBytes());
    JsonNode root;
    try (JsonParser parser = parser(json, limits.maxNodes())) {
      root = Json.mapper().readTree(parser);
    } catch (StreamConstraintsException e) {
      throw new RecordFormatException(
          "release record holds more than "
              + limits.maxNodes()
              + " nodes (mappings, lists, keys and values), more than this reader may hold of a"
              + " record",
          null);
    } catch (IOException e) {
      throw new RecordFormatException("release record is not valid JSON: " + e.getMessage(), e);
    }
    if (root == null) {
      throw new RecordFormatException("release record is not valid JSON: no content", null);
    }
    JsonNode version = root.get("schemaVersion");
    if (version == null || !version.canConvertToInt()) {
      throw new RecordFormatException("release record has no schemaVersion", null);
    }
    if (version.asInt() < OLDEST_READABLE_VERSION || version.asInt() > SCHEMA_VERSION) {
      throw new RecordFormatException(
          "release record schemaVersion must be from "
              + OLDEST_READABLE_VERSION
              + " to "
              + SCHEMA_VERSION
              + ": "
              + version.asInt()
              + " (written by a different Capstan version)",
          null);
    }
    JsonNode release = root.get("release");
    if (release == null || !release.isObject()) {
      throw new RecordFormatException("release record has no release object", null);
    }
    if (version.asInt() == 1) {
      release = SchemaV1.upgrade((ObjectNode) release);
    }
    try {
      return Json.mapper().treeToValue(release, Release.class);
    } catch (IOException | IllegalArgumentException e) {
      throw new RecordFormatException("release record is malformed: " + e.getMessage(), e);
    }
  }

  /** A parser of {@code json} that builds no more than {@code maxNodes} nodes. */
  private static JsonParser parser(byte[] json, long maxNodes) throws IOException {
    return JsonMappers.boundedTo(Json.mapper().getFactory(), maxNodes).createParser(json);
  }

  private static byte[] gunzip(byte[] encoded, long max) {
    try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(encoded))) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      byte[] buffer = new byte[8192];
      long total = 0;
      for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
        total += n;
        if (total > max) {
          throw new RecordFormatException(
              "release record decodes to more than " + max + " bytes", null);
        }
        out.write(buffer, 0, n);
      }
      return out.toByteArray();
    } catch (IOException e) {
      throw new RecordFormatException("release record is not gzip data: " + e.getMessage(), e);
    }
  }
}
